// The worker's structured logs: one JSON line per event with its fields (a round's counts, a report
// file, an error), idle rounds below info, card data and secrets masked by the runtime's one
// redaction wherever they stand, and a config object logged by mistake with every secret in it
// censored.
import { testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { jsonLineSink } from '@paykit/testing/log-lines';
import { TEST_SECRETS } from '@paykit/testing/secret-audit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { createLogger, loggedEvents } from '../src/logging.ts';
import { startApplyLoop } from '../src/loop.ts';

/** A logger at `level` whose lines are parsed into `lines`. */
function capture(level: 'info' | 'debug') {
  const { lines, stream } = jsonLineSink();
  return { lines, logger: createLogger({ logLevel: level }, stream) };
}
const settle = () => new Promise((resolve) => setImmediate(resolve));

let opened: OpenedTestDatabase;
beforeAll(async () => {
  opened = await testDatabases([ledgerMigrations])[0]!.open();
});
afterAll(async () => {
  await opened.drop();
});

describe('worker logs', () => {
  it('writes a round with counts, a report file and an error as JSON lines with their fields', async () => {
    const { lines, logger } = capture('info');
    const events = loggedEvents(logger);
    events.onRound!({ batches: 1, applied: 3, parked: 1, ms: 12 });
    events.onRound!({ batches: 0, applied: 0, parked: 0, ms: 1 });
    events.onReportImported!('TRANSACTIONS_DAILY_2026-11-25_1.csv', 12);
    events.onReportError!('TRANSACTIONS_DAILY_2026-11-25_2.csv', new Error('the core service answered 503'));
    events.onError!(new Error('the postgres store did not answer within 15000 ms'));
    await settle();
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      [30, 'reconcile round'],
      [30, 'report file imported'],
      [40, 'report file not imported yet (retrying later)'],
      [50, 'reconcile round failed (retrying)'],
    ]);
    expect(lines[0]).toMatchObject({ name: 'reconciliation-worker', applied: 3, parked: 1, batches: 1, ms: 12 });
    expect(lines[1]).toMatchObject({ fileName: 'TRANSACTIONS_DAILY_2026-11-25_1.csv', lines: 12 });
    expect(lines[2]).toMatchObject({ err: 'the core service answered 503' });
  });

  it('logs each round of the apply loop, idle ones at debug', async () => {
    const { lines, logger } = capture('debug');
    const loop = startApplyLoop(opened.db, { batchSize: 100, pollMs: 10, leaseSeconds: 60, ...loggedEvents(logger) });
    for (let i = 0; i < 100 && lines.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    await loop.stop();
    expect(lines[0]).toMatchObject({
      level: 20,
      msg: 'reconcile round',
      applied: 0,
      parked: 0,
      batches: expect.any(Number) as unknown,
      ms: expect.any(Number) as unknown,
    });
  });

  it('masks card data and secrets in any field, error or message, as the CLI and the clients do', async () => {
    const { lines, logger } = capture('info');
    logger.warn(
      {
        payload: {
          reference: 4111111111111111,
          card: { code: '9173' },
          cvv_code: '9174',
          secretKey: 'sk_live_0123456789abcdef',
        },
        err: new Error('card 5555.5555.5555.4444 declined'),
        clabe: '002180000000000164',
      },
      'stored event 4111 1111 1111 1111',
    );
    await settle();
    const text = JSON.stringify(lines);
    for (const hidden of ['4111111111111111', '5555.5555', '4111 1111', '9173', '9174', 'sk_live_0123456789abcdef'])
      expect(text).not.toContain(hidden);
    expect(lines[0]).toMatchObject({
      msg: 'stored event ************1111',
      payload: { reference: '************1111', card: {}, secretKey: '[redacted]' },
      err: { type: 'Error', message: 'card ************4444 declined' },
      clabe: '002180000000000164',
    });
  });

  it('censors every secret of a config object logged by mistake', async () => {
    const { lines, logger } = capture('info');
    const config = loadConfig({
      DATABASE_URL: `postgres://paykit:${TEST_SECRETS.metricsToken}-db@127.0.0.1:5432/paykit`,
      METRICS_TOKEN: TEST_SECRETS.metricsToken,
      WORKER_CORE_CLIENT_ID: '11111111-1111-4111-8111-111111111111',
      WORKER_CORE_API_KEY: 'ak_worker_log_test_4hT9qW2zX7',
      WORKER_CORE_CLIENT_SECRET: 'cs_worker_log_test_8mK3pL6vN1',
    });
    logger.info({ config }, 'configuration');
    await settle();
    const text = JSON.stringify(lines);
    for (const secret of [TEST_SECRETS.metricsToken, 'ak_worker_log_test_4hT9qW2zX7', 'cs_worker_log_test_8mK3pL6vN1'])
      expect(text).not.toContain(secret);
    expect(lines[0]).toMatchObject({
      config: {
        databaseUrl: '[redacted]',
        metricsToken: '[redacted]',
        reports: { core: { apiKey: '[redacted]', clientSecret: '[redacted]' } },
      },
    });
  });
});
