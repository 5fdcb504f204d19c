// Group commit without a timer: while commits are in flight, new items queue; when a slot frees,
// everything queued (up to maxBatch) goes in the next commit. Under light load an item is written
// at once, alone; under heavy load batches grow by themselves to fill the time one commit takes,
// so one fsync serves many items. Each item resolves only after the commit that holds it succeeded.

export interface CommitInfo {
  events: number;
  ms: number;
  ok: boolean;
}

export interface GroupCommitOptions<I, R> {
  /** Writes the items in one transaction; one result per item, in order (an Error rejects just that item). Throwing rejects them all. */
  commit: (items: I[]) => Promise<Array<R | Error>>;
  maxBatch: number;
  /** With `weigh`: the most a batch may weigh (bytes, say); an item heavier than that goes alone. */
  maxBatchWeight?: number;
  weigh?: (item: I) => number;
  maxInFlight: number;
  onCommit?: ((info: CommitInfo) => void) | undefined;
  /** What a caller whose deadline passed first is rejected with. */
  deadlineError: (waitedMs: number) => Error;
  /** What a submit after close() is rejected with. */
  closedError: () => Error;
  /** What a thrown commit becomes for its callers. */
  failureError: (error: unknown) => Error;
}

export interface GroupCommit<I, R> {
  /** `deadline` is a performance.now() time; past it the promise rejects (the commit may still land later). */
  submit(item: I, deadline?: number): Promise<R>;
  /** Commits what is queued, then every later submit is refused. */
  close(): Promise<void>;
}

interface Waiting<I, R> {
  item: I;
  queuedAt: number;
  settled: boolean;
  timer: NodeJS.Timeout | undefined;
  resolve: (result: R) => void;
  reject: (error: Error) => void;
}

export function createGroupCommit<I, R>(options: GroupCommitOptions<I, R>): GroupCommit<I, R> {
  const queue: Waiting<I, R>[] = [];
  let inFlight = 0;
  let scheduled = false;
  let closed = false;
  let idleWaiters: (() => void)[] = [];

  const settle = (waiting: Waiting<I, R>, outcome: { result: R } | { error: Error }): void => {
    if (waiting.settled) return;
    waiting.settled = true;
    clearTimeout(waiting.timer);
    if ('error' in outcome) waiting.reject(outcome.error);
    else waiting.resolve(outcome.result);
  };

  const takeBatch = (): Waiting<I, R>[] => {
    const batch: Waiting<I, R>[] = [];
    let weight = 0;
    while (batch.length < options.maxBatch && queue.length > 0) {
      const next = queue[0]!;
      const itemWeight = next.settled ? 0 : (options.weigh?.(next.item) ?? 0);
      // Full: the next item waits for the next batch (one heavier than a whole batch goes alone).
      if (batch.length > 0 && weight + itemWeight > (options.maxBatchWeight ?? Infinity)) break;
      queue.shift();
      // Its deadline passed while it queued: the caller has answered already, so do not write it.
      if (next.settled) continue;
      weight += itemWeight;
      batch.push(next);
    }
    return batch;
  };

  const run = async (batch: Waiting<I, R>[]): Promise<void> => {
    const started = performance.now();
    let ok = false;
    try {
      const results = await options.commit(batch.map((waiting) => waiting.item));
      ok = true;
      batch.forEach((waiting, index) => {
        const result = results[index];
        settle(waiting, result instanceof Error ? { error: result } : { result: result as R });
      });
    } catch (error) {
      const failure = options.failureError(error);
      for (const waiting of batch) settle(waiting, { error: failure });
    }
    try {
      options.onCommit?.({ events: batch.length, ms: performance.now() - started, ok });
    } catch {
      // Metrics must never break a commit.
    }
  };

  const pump = (): void => {
    scheduled = false;
    while (inFlight < options.maxInFlight) {
      const batch = takeBatch();
      if (batch.length === 0) break;
      inFlight++;
      void run(batch).finally(() => {
        inFlight--;
        pump();
      });
    }
    if (inFlight === 0 && queue.length === 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const wake of waiters) wake();
    }
  };

  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    // A microtask, not a timer: items submitted in the same turn of the event loop share a commit,
    // and nothing ever waits for a clock.
    queueMicrotask(pump);
  };

  return {
    submit(item, deadline) {
      if (closed) return Promise.reject(options.closedError());
      return new Promise<R>((resolve, reject) => {
        const queuedAt = performance.now();
        const waiting: Waiting<I, R> = { item, queuedAt, settled: false, timer: undefined, resolve, reject };
        if (deadline !== undefined) {
          const remaining = deadline - queuedAt;
          if (!(remaining > 0)) {
            reject(options.deadlineError(0));
            return;
          }
          waiting.timer = setTimeout(
            () => settle(waiting, { error: options.deadlineError(performance.now() - queuedAt) }),
            remaining,
          );
        }
        queue.push(waiting);
        schedule();
      });
    },
    close() {
      closed = true;
      if (inFlight === 0 && queue.length === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        schedule();
      });
    },
  };
}
