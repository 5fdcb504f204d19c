// The worker's connection to PostgreSQL freezes (no reset, no error: a firewall or NAT that dropped
// its state), the worker running as its own process with its default deadlines: /healthz tells
// the truth meanwhile (events waiting, never caughtUp while they wait, the database not named),
// the worker applies again within 30 s of the network coming back (the frozen connections lost
// for good) by itself, and SIGTERM during a freeze exits within 10 s. A real TCP proxy between
// the worker and the real PostgreSQL (needs DATABASE_URL).
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createEventStore, type Database, type EventStore, type NewEvent } from '@paykit/store';
import { testDatabases } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { startAppProcess, type AppProcess } from '@paykit/testing/app-process';
import { proxyUrl, type TcpProxy } from '@paykit/testing/tcp-proxy';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const postgres = testDatabases([ledgerMigrations]).find((kind) => kind.name === 'postgres');
const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');
const FREEZE_MS = 8_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Health {
  ok: boolean;
  applied: number;
  caughtUp: boolean;
  waiting: number | null;
  lastAttemptFailed: boolean;
  storeError: string | null;
}

/** A stored STATUS_UPDATE for a transfer nobody recorded: the worker applies it (an orphan item). */
function statusUpdate(): NewEvent {
  const idMsg = randomUUID();
  const payload = {
    id_msg: idMsg,
    msg_name: 'STATUS_UPDATE',
    msg_date: '2026-11-21',
    body: { id: randomUUID(), status: 'LIQUIDATED', update_at: '2026-11-21T10:16:00-06:00' },
  };
  return {
    source: 'core',
    eventType: 'STATUS_UPDATE',
    dedupeKey: `core:${idMsg}`,
    idMsg,
    transactionId: payload.body.id,
    operationId: null,
    rawBody: new TextEncoder().encode(JSON.stringify(payload)),
    headers: { 'content-type': 'application/json' },
    receivedAt: new Date('2026-11-21T16:16:00Z'),
    drift: [],
    outcome: 'accepted',
    reason: null,
    answerStatus: 200,
    refundReason: null,
  };
}

describe.skipIf(!postgres)('the worker when its PostgreSQL connection freezes', () => {
  let proxy: TcpProxy;
  let db: Database;
  let events: EventStore;
  let drop: () => Promise<void>;
  let proxiedUrl: URL;
  let worker: AppProcess | undefined;

  beforeAll(async () => {
    const opened = await postgres!.open();
    db = opened.db;
    drop = opened.drop;
    events = createEventStore(db);
    ({ proxy, url: proxiedUrl } = await proxyUrl(opened.url!));
  });
  afterEach(async () => {
    proxy.thaw();
    await worker?.kill();
    worker = undefined;
  });
  afterAll(async () => {
    await events?.close();
    await proxy?.close();
    await drop?.();
  });

  const start = async () =>
    (worker = await startAppProcess({
      name: 'The worker',
      main: MAIN,
      env: { DATABASE_URL: proxiedUrl.toString(), WORKER_PORT: '0', WORKER_POLL_MS: '200' },
    }));
  const health = async (): Promise<{ health: Health; text: string; ms: number }> => {
    const started = performance.now();
    const text = await (await fetch(`${worker!.url}/healthz`)).text();
    return { health: JSON.parse(text) as Health, text, ms: performance.now() - started };
  };
  const store = (count: number) => Promise.all(Array.from({ length: count }, () => events.append(statusUpdate())));
  /** Polls /healthz until `done`; returns how long that took, or throws after `withinMs`. */
  const until = async (done: (health: Health) => boolean, withinMs: number): Promise<number> => {
    const started = performance.now();
    let last: Health | undefined;
    while (performance.now() - started < withinMs) {
      last = (await health()).health;
      if (done(last)) return performance.now() - started;
      await sleep(100);
    }
    throw new Error(`not within ${withinMs} ms; last /healthz: ${JSON.stringify(last)}`);
  };

  it('says events wait while frozen, never caughtUp, and applies them within 30 s of the thaw by itself', {
    timeout: 90_000,
  }, async () => {
    await start();
    await store(20);
    await until((h) => h.caughtUp && h.applied === 20 && h.waiting === 0, 15_000);

    proxy.freeze();
    await store(30);
    const frozenUntil = performance.now() + FREEZE_MS;
    const seen: Health[] = [];
    while (performance.now() < frozenUntil) {
      const { health: h, text, ms } = await health();
      seen.push(h);
      expect(ms).toBeLessThan(3_000);
      for (const secret of ['postgres@', proxiedUrl.pathname.slice(1), `:${proxy.port}`])
        expect(text).not.toContain(secret);
      await sleep(250);
    }
    // Events wait and the store cannot even count them: never caughtUp, never ok.
    expect(seen.filter((h) => h.caughtUp)).toEqual([]);
    expect(seen.filter((h) => h.ok)).toEqual([]);
    expect(seen.at(-1)).toMatchObject({ applied: 20, waiting: null });
    expect(seen.at(-1)!.storeError).toMatch(/did not count the waiting events/);

    proxy.thaw({ frozen: 'lost' });
    const resumedMs = await until((h) => h.applied === 50, 30_000);
    expect(resumedMs).toBeLessThan(30_000);
    await until((h) => h.caughtUp && h.waiting === 0 && h.ok && !h.lastAttemptFailed, 5_000);
  });

  it('exits within 10 s of SIGTERM while its connection is frozen', async () => {
    const running = await start();
    await until((h) => h.caughtUp, 15_000);
    proxy.freeze();
    await store(5);
    await sleep(1_000);
    const started = performance.now();
    process.kill(running.pid, 'SIGTERM');
    const code = await Promise.race([running.exited, sleep(15_000).then(() => 'still running')]);
    const ms = performance.now() - started;
    // 0: it stopped by itself rather than by its last-resort timer (exit 1).
    expect(code).toBe(0);
    expect(ms).toBeLessThan(10_000);
  });
});
