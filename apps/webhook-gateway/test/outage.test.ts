// The store goes away or slows down: the gateway answers 503 (never 2xx without a commit, never
// later than its budget), /readyz says so, and once the store is back the redelivered events are
// stored exactly once. PostgreSQL behind a TCP proxy the test cuts and slows (needs DATABASE_URL).
import { openDatabase, type Database } from '@paykit/store';
import { testDatabases } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { startTcpProxy, type TcpProxy } from '@paykit/testing/tcp-proxy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { startGateway, type Gateway } from '../src/server.ts';
import { CLABES, bearer, logCapture, moneyInEnvelope, post, testEnv } from './helpers.ts';

const postgres = testDatabases([ledgerMigrations]).find((kind) => kind.name === 'postgres');
const COMMIT_TIMEOUT_MS = 1_500;

describe.skipIf(!postgres)('the gateway when PostgreSQL is cut or slow', () => {
  let proxy: TcpProxy;
  let drop: () => Promise<void>;
  let proxied: Database;
  let gateway: Gateway;

  beforeAll(async () => {
    const opened = await postgres!.open();
    drop = opened.drop;
    const url = new URL(opened.url!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.host = `127.0.0.1:${proxy.port}`;
    proxied = await openDatabase({ databaseUrl: url.toString(), connectTimeoutMs: 500, poolSize: 4 });
    gateway = await startGateway({
      config: loadConfig(testEnv({ GATEWAY_COMMIT_TIMEOUT_MS: String(COMMIT_TIMEOUT_MS) })),
      database: proxied,
      logDestination: logCapture().stream,
      processMetrics: false,
    });
    await gateway.accounts.upsert({ clabe: CLABES.acme, ownerId: null, status: 'ACTIVE', creditLimit: null });
  });
  afterAll(async () => {
    await gateway?.close();
    await proxied?.close();
    await proxy?.close();
    await drop?.();
  });

  const deliver = async (raw: string) => {
    const started = performance.now();
    const answer = await post(`${gateway.url}/webhooks/core/money-in`, raw, bearer());
    return { ...answer, ms: performance.now() - started };
  };
  const storedCount = async (idMsg: string) => {
    const { rows } = await proxied.query<{ n: string }>(
      'SELECT count(*)::text AS n FROM webhook_events WHERE id_msg = $1',
      [idMsg],
    );
    return Number(rows[0]!.n);
  };

  it('answers 503 while the store is unreachable, reports it on /readyz, and stores the redelivery once back', async () => {
    expect((await deliver(JSON.stringify(moneyInEnvelope()))).status).toBe(201);
    proxy.cut();
    const delivery = moneyInEnvelope();
    const raw = JSON.stringify(delivery);
    const during = await Promise.all(Array.from({ length: 5 }, () => deliver(raw)));
    for (const answer of during) {
      expect(answer.status).toBe(503);
      expect(answer.json.error).toBe('store_unavailable');
      expect(answer.ms).toBeLessThan(5_000);
    }
    expect((await fetch(`${gateway.url}/readyz`)).status).toBe(503);
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);

    proxy.restore();
    // The platform redelivers until it gets a 2xx.
    let answer = await deliver(raw);
    for (let i = 0; answer.status !== 201 && i < 40; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      answer = await deliver(raw);
    }
    expect(answer.status).toBe(201);
    expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
    expect(await storedCount(delivery.id_msg as string)).toBe(1);
  });

  it('answers 503 within its commit budget when the store is slower than the platform waits, and stores the event once', async () => {
    proxy.setLatency(COMMIT_TIMEOUT_MS + 1_500);
    const delivery = moneyInEnvelope();
    const raw = JSON.stringify(delivery);
    const slow = await deliver(raw);
    proxy.setLatency(0);
    expect(slow.status).toBe(503);
    expect(slow.ms).toBeGreaterThanOrEqual(COMMIT_TIMEOUT_MS - 50);
    expect(slow.ms).toBeLessThan(COMMIT_TIMEOUT_MS + 1_000);
    // The late commit may still land: the redelivery is then a duplicate, answered 201 all the same.
    let answer = await deliver(raw);
    for (let i = 0; answer.status !== 201 && i < 40; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      answer = await deliver(raw);
    }
    expect(answer.status).toBe(201);
    expect(await storedCount(delivery.id_msg as string)).toBe(1);
  });
});
