// The scheduler on its own: batches form while commits are in flight, never wider than maxBatch,
// never more than maxInFlight at once, and nothing waits for a timer.
import { describe, expect, it } from 'vitest';
import { createGroupCommit } from '../src/group-commit.ts';
import type { CommitInfo, GroupCommitOptions } from '../src/group-commit.ts';

interface Harness {
  batches: number[][];
  finish: () => void;
  inFlightPeak: number;
}

function harness(overrides: Partial<GroupCommitOptions<number, string>> = {}): {
  commit: ReturnType<typeof createGroupCommit<number, string>>;
  state: Harness;
  infos: CommitInfo[];
} {
  const state: Harness = { batches: [], finish: () => {}, inFlightPeak: 0 };
  const infos: CommitInfo[] = [];
  let inFlight = 0;
  const gates: (() => void)[] = [];
  state.finish = () => {
    for (const open of gates.splice(0)) open();
  };
  const commit = createGroupCommit<number, string>({
    commit: async (items) => {
      state.batches.push(items);
      inFlight++;
      state.inFlightPeak = Math.max(state.inFlightPeak, inFlight);
      await new Promise<void>((resolve) => gates.push(resolve));
      inFlight--;
      return items.map((item) => (item < 0 ? new Error(`bad item ${item}`) : `done ${item}`));
    },
    maxBatch: 3,
    maxInFlight: 2,
    onCommit: (info) => infos.push(info),
    deadlineError: (waited) => new Error(`deadline after ${Math.round(waited)} ms`),
    closedError: () => new Error('closed'),
    failureError: (error) => new Error(`failed: ${(error as Error).message}`),
    ...overrides,
  });
  return { commit, state, infos };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('group commit', () => {
  it('queues while commits are in flight and takes at most maxBatch per commit', async () => {
    const { commit, state, infos } = harness();
    const first = commit.submit(1);
    await tick();
    const rest = [2, 3, 4, 5, 6, 7, 8].map((item) => commit.submit(item));
    await tick();
    expect(state.batches).toEqual([[1], [2, 3, 4]]);
    expect(state.inFlightPeak).toBe(2);
    state.finish();
    await first;
    await tick();
    expect(state.batches).toEqual([[1], [2, 3, 4], [5, 6, 7], [8]]);
    state.finish();
    await tick();
    state.finish();
    expect(await Promise.all(rest)).toEqual(['done 2', 'done 3', 'done 4', 'done 5', 'done 6', 'done 7', 'done 8']);
    expect(infos.map((info) => info.events)).toEqual([1, 3, 3, 1]);
    expect(infos.every((info) => info.ok)).toBe(true);
  });

  it('keeps a batch under maxBatchWeight, and commits an item heavier than that alone', async () => {
    // Items weigh what they say: 100 + 200 fit under 350, 300 starts the next batch, 900 goes alone.
    const { commit, state } = harness({ maxInFlight: 1, maxBatch: 10, maxBatchWeight: 350, weigh: (item) => item });
    const blocking = commit.submit(1);
    await tick();
    const rest = [100, 200, 300, 900, 20].map((item) => commit.submit(item));
    for (let round = 0; round < 4; round++) {
      state.finish();
      await tick();
    }
    await blocking;
    expect(state.batches).toEqual([[1], [100, 200], [300], [900], [20]]);
    state.finish();
    expect(await Promise.all(rest)).toEqual(['done 100', 'done 200', 'done 300', 'done 900', 'done 20']);
  });

  it('rejects one item its commit refused, and every item of a commit that threw', async () => {
    const { commit, state } = harness();
    const results = Promise.allSettled([commit.submit(1), commit.submit(-2)]);
    await tick();
    state.finish();
    expect(
      (await results).map((result) =>
        result.status === 'fulfilled' ? result.value : (result.reason as Error).message,
      ),
    ).toEqual(['done 1', 'bad item -2']);

    const failing = harness({ commit: () => Promise.reject(new Error('connection lost')) });
    const both = await Promise.allSettled([failing.commit.submit(1), failing.commit.submit(2)]);
    expect(both.map((result) => (result as PromiseRejectedResult).reason.message)).toEqual([
      'failed: connection lost',
      'failed: connection lost',
    ]);
    expect(failing.infos).toEqual([{ events: 2, ms: expect.any(Number), ok: false }]);
  });

  it('rejects at the deadline, and skips items whose deadline passed while they queued', async () => {
    const { commit, state } = harness({ maxInFlight: 1 });
    const blocking = commit.submit(1);
    await tick();
    const late = commit.submit(2, performance.now() + 20);
    await expect(late).rejects.toThrow(/^deadline after \d+ ms$/);
    const onTime = commit.submit(3, performance.now() + 5000);
    state.finish();
    await blocking;
    await tick();
    expect(state.batches).toEqual([[1], [3]]);
    state.finish();
    expect(await onTime).toBe('done 3');
    await expect(commit.submit(4, performance.now() - 1)).rejects.toThrow('deadline after 0 ms');
  });

  it('ignores an onCommit that throws', async () => {
    const { commit, state } = harness({
      onCommit: () => {
        throw new Error('metrics broke');
      },
    });
    const result = commit.submit(1);
    await tick();
    state.finish();
    expect(await result).toBe('done 1');
  });

  it('close() commits what is queued, then refuses new items', async () => {
    const { commit, state } = harness({ maxInFlight: 1 });
    const items = [1, 2, 3, 4, 5].map((item) => commit.submit(item));
    const closed = commit.close();
    await expect(commit.submit(6)).rejects.toThrow('closed');
    let done = false;
    void closed.then(() => (done = true));
    for (let round = 0; round < 3; round++) {
      await tick();
      state.finish();
    }
    await closed;
    expect(done).toBe(true);
    expect(await Promise.all(items)).toHaveLength(5);
    await expect(commit.close()).resolves.toBeUndefined();
  });
});
