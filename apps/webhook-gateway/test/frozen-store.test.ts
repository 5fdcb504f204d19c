// The connection to PostgreSQL freezes (no reset, no error: a firewall or NAT that dropped its
// state) under the gateway running as its own process, with its default deadlines: it answers 503
// within the platform's 5 s while frozen, /readyz says so without naming the database, 2xx again
// within 15 s of the network coming back (the frozen connections lost for good), every delivery
// answered 2xx is stored exactly once, and SIGTERM during a freeze exits within 10 s.
// A real TCP proxy between the gateway and the real PostgreSQL (needs DATABASE_URL).
import path from 'node:path';
import { createAccountStore, type Database } from '@paykit/store';
import { testDatabases } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { startAppProcess, type AppProcess } from '@paykit/testing/app-process';
import { proxyUrl, type TcpProxy } from '@paykit/testing/tcp-proxy';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLABES, bearer, moneyInEnvelope, post, testEnv } from './helpers.ts';

const postgres = testDatabases([ledgerMigrations]).find((kind) => kind.name === 'postgres');
const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');
const FREEZE_MS = 8_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!postgres)('the gateway when its PostgreSQL connection freezes', () => {
  let proxy: TcpProxy;
  let db: Database;
  let drop: () => Promise<void>;
  let proxiedUrl: URL;
  let gateway: AppProcess | undefined;

  beforeAll(async () => {
    const opened = await postgres!.open();
    db = opened.db;
    drop = opened.drop;
    ({ proxy, url: proxiedUrl } = await proxyUrl(opened.url!));
    await createAccountStore(db).upsert({ clabe: CLABES.acme, ownerId: null, status: 'ACTIVE', creditLimit: null });
  });
  afterEach(async () => {
    proxy.thaw();
    await gateway?.kill();
    gateway = undefined;
  });
  afterAll(async () => {
    await proxy?.close();
    await drop?.();
  });

  const start = async () =>
    (gateway = await startAppProcess({
      name: 'The gateway',
      main: MAIN,
      env: testEnv({ DATABASE_URL: proxiedUrl.toString(), GATEWAY_LOG_LEVEL: 'silent' }),
    }));
  const deliver = async (raw: string) => {
    const started = performance.now();
    try {
      const answer = await post(`${gateway!.url}/webhooks/core/money-in`, raw, bearer());
      return { status: answer.status, ms: performance.now() - started };
    } catch {
      return { status: 0, ms: performance.now() - started };
    }
  };
  const stored = async (idMsgs: string[]) => {
    const { rows } = await db.query<{ id_msg: string; n: string }>(
      'SELECT id_msg, count(*)::text AS n FROM webhook_events WHERE id_msg = ANY($1) GROUP BY id_msg',
      [idMsgs],
    );
    return new Map(rows.map((row) => [row.id_msg, Number(row.n)]));
  };

  it('answers 503 within 5 s while frozen, says so on /readyz, and answers 2xx within 15 s of the thaw with nothing acknowledged lost', {
    timeout: 90_000,
  }, async () => {
    await start();
    const sent = new Map<string, string>();
    const acknowledged = new Set<string>();
    const send = async () => {
      const event = moneyInEnvelope();
      const raw = JSON.stringify(event);
      sent.set(event.id_msg as string, raw);
      const answer = await deliver(raw);
      if (answer.status >= 200 && answer.status < 300) acknowledged.add(event.id_msg as string);
      return { ...answer, at: performance.now() };
    };
    // Several connections open and idle in the pool: all of them freeze.
    const before = await Promise.all(Array.from({ length: 8 }, send));
    expect(before.map((answer) => answer.status)).toEqual(Array(8).fill(201));

    proxy.freeze();
    const frozenUntil = performance.now() + FREEZE_MS;
    const during: Array<Promise<{ status: number; ms: number; at: number }>> = [];
    while (performance.now() < frozenUntil) {
      during.push(send());
      await sleep(250);
    }
    const ready = await fetch(`${gateway!.url}/readyz`);
    const readyText = await ready.text();
    proxy.thaw({ frozen: 'lost' });
    const thawedAt = performance.now();
    const answers = (await Promise.all(during)).map((answer) => ({ ...answer, afterThaw: answer.at > thawedAt }));
    // Every answer given while frozen is a 503. One sent just before the thaw that a loaded
    // machine answers after it may be stored (2xx, acknowledged: counted below) or refused.
    for (const answer of answers)
      if (answer.afterThaw) expect([201, 503]).toContain(answer.status);
      else expect(answer).toMatchObject({ status: 503 });
    expect(answers.filter((answer) => !answer.afterThaw).length).toBeGreaterThan(answers.length / 2);
    expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(5_000);
    expect(ready.status).toBe(503);
    for (const secret of ['postgres@', proxiedUrl.pathname.slice(1), `:${proxy.port}`, '127.0.0.1'])
      expect(readyText).not.toContain(secret);

    // The platform keeps delivering: the first 2xx after the thaw.
    let recovered: number | undefined;
    while (recovered === undefined && performance.now() - thawedAt < 30_000) {
      const answer = await send();
      if (answer.status === 201) recovered = performance.now() - thawedAt;
      else await sleep(250);
    }
    expect(recovered).toBeDefined();
    expect(recovered!).toBeLessThan(15_000);
    const readyAfter = await fetch(`${gateway!.url}/readyz`);
    expect(readyAfter.status).toBe(200);
    expect(await readyAfter.text()).not.toContain(proxiedUrl.pathname.slice(1));
    // The frozen statements were counted, and nothing is stuck now.
    const metrics = await (await fetch(`${gateway!.url}/metrics`)).text();
    expect(Number(/^gateway_store_statement_timeouts (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
    expect(metrics).toMatch(/^gateway_store_connections\{state="waiting"\} 0$/m);

    // Redeliveries of what was refused: each event stored once, every acknowledged one among them.
    for (const [idMsg, raw] of sent) {
      if (acknowledged.has(idMsg)) continue;
      const answer = await deliver(raw);
      expect(answer.status).toBe(201);
      acknowledged.add(idMsg);
    }
    const counts = await stored([...sent.keys()]);
    expect([...sent.keys()].filter((idMsg) => counts.get(idMsg) !== 1)).toEqual([]);
  });

  it('exits within 10 s of SIGTERM while its connection is frozen and a delivery waits on it', async () => {
    const running = await start();
    expect((await deliver(JSON.stringify(moneyInEnvelope()))).status).toBe(201);
    proxy.freeze();
    const inFlight = deliver(JSON.stringify(moneyInEnvelope()));
    await sleep(500);
    const started = performance.now();
    process.kill(running.pid, 'SIGTERM');
    const code = await Promise.race([running.exited, sleep(15_000).then(() => 'still running')]);
    const ms = performance.now() - started;
    // 0: it stopped by itself, every wait bounded, rather than by its last-resort timer (exit 1).
    expect(code).toBe(0);
    expect(ms).toBeLessThan(10_000);
    expect((await inFlight).status).not.toBe(201);
  });
});
