// The report file fetched from the platform, end to end: the sandbox (its own process) sends a
// REPORT through the gateway (its own process) into the store; the worker applies it, asks the
// documented download endpoint for the file, fetches it and imports it, and every line matches
// three ways. A platform that is down or has no file yet is tried again later (nothing parked), a
// file is imported once however often it is fetched, and the configuration names what is missing.
import { createServer } from 'node:net';
import { createCoreClient } from '@paykit/core-client';
import { createTransactionRecorder, reconcileOnce, reportMatches } from '@paykit/ledger';
import type { Database } from '@paykit/store';
import { seededClients, type SeededCoreOptions } from '@paykit/testing/seeded-clients';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { createReportFetcher, operationDateOf, type ReportFetchOptions } from '../src/report-fetch.ts';
import { startWorker } from '../src/worker.ts';
import { startPipeline, type Pipeline } from './pipeline.ts';

const OPTIONS: ReportFetchOptions = {
  pollMs: 50,
  timeoutMs: 5_000,
  maxBytes: 1024 * 1024,
  retryBaseMs: 60_000,
  retryMaxMs: 600_000,
};

async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('report files fetched from the platform after their REPORT event', () => {
  let pipeline: Pipeline | undefined;
  let db: Database;
  let fileName = '';
  const ids: Record<string, string> = {};
  let client: SeededCoreOptions;

  beforeAll(async () => {
    pipeline = await startPipeline('report-fetch');
    const { sandbox, ok, out } = pipeline;
    client = (await seededClients(sandbox)).core;
    ids.settled = await out('300.00');
    ok(await sandbox.control.triggerSpeiSettle({ params: { transactionId: ids.settled }, body: {} }), 'settle');
    ids.rejected = await out('200.00');
    ok(await sandbox.control.triggerSpeiReject({ params: { transactionId: ids.rejected }, body: {} }), 'reject');
    fileName = ok(
      await sandbox.control.triggerReport({
        body: { clientId: client.clientId, fileType: 'TRANSACTIONS', period: 'DAILY' },
      }),
      'report',
    ).fileName;
    db = await pipeline.stopGatewayAndOpenLedger();
    const record = createTransactionRecorder(db);
    for (const transaction of pipeline.created) await record(transaction);
    const applied = await reconcileOnce(db);
    if (applied.parked !== 0) throw new Error(`${applied.parked} events were parked`);
  }, 90_000);

  afterAll(async () => {
    await pipeline?.close();
  });

  const pending = async () =>
    (
      await db.query<{ file_name: string; imported: boolean }>(
        'SELECT file_name, imported_at IS NOT NULL AS imported FROM ledger_reports',
      )
    ).rows;

  it('a platform that is down is tried again later: nothing thrown, nothing parked, the file still waiting', async () => {
    const down = createCoreClient({ ...client, baseUrl: `http://127.0.0.1:${await deadPort()}/core`, maxRetries: 0 });
    let now = 0;
    const errors: string[] = [];
    const fetcher = createReportFetcher(db, down.reports, {
      ...OPTIONS,
      now: () => now,
      onError: (_file, error) => errors.push(String(error)),
    });
    expect(await fetcher.runOnce()).toEqual([]);
    expect(fetcher.failures).toBe(1);
    expect(fetcher.lastErrors.get(fileName)).toMatch(/ECONNREFUSED|connect|connection/i);
    // Not due yet: the next round does not call the platform again.
    expect(await fetcher.runOnce()).toEqual([]);
    expect(fetcher.failures).toBe(1);
    now += OPTIONS.retryBaseMs;
    await fetcher.runOnce();
    expect(fetcher.failures).toBe(2);
    expect(await pending()).toEqual([{ file_name: fileName, imported: false }]);
    expect((await db.query('SELECT count(*)::int AS n FROM ledger_parked_events')).rows[0]).toEqual({ n: 0 });
    // No secret in what is reported.
    for (const text of errors)
      for (const secret of [client.apiKey, client.clientSecret]) expect(text).not.toContain(secret);
  });

  it('the worker, configured with core credentials, fetches the announced file, imports it and the lines match three ways', async () => {
    const sandbox = pipeline!.sandbox;
    const config = loadConfig({
      WORKER_PORT: '0',
      WORKER_POLL_MS: '50',
      WORKER_CORE_ENVIRONMENT: 'sandbox',
      WORKER_CORE_BASE_URL: sandbox.urls.core,
      WORKER_CORE_CLIENT_ID: client.clientId,
      WORKER_CORE_API_KEY: client.apiKey,
      WORKER_CORE_CLIENT_SECRET: client.clientSecret,
      WORKER_REPORT_POLL_MS: '100',
    });
    const imported: [string, number][] = [];
    const worker = await startWorker(config, {
      database: db,
      onReportImported: (name, lines) => imported.push([name, lines]),
    });
    try {
      const deadline = Date.now() + 20_000;
      while (imported.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(imported).toEqual([[fileName, 2]]);
      expect(worker.reports?.lastErrors.size).toBe(0);
    } finally {
      await worker.close();
    }
    expect(await pending()).toEqual([{ file_name: fileName, imported: true }]);
    const matches = new Map((await reportMatches(db, fileName)).map((m) => [m.transactionId, m]));
    expect(matches.get(ids.settled!)).toMatchObject({
      state: 'matched',
      amount: '300.00',
      status: 'LIQUIDATED',
      recordAmount: '300.00',
      eventStatus: 'LIQUIDATED',
      fields: [],
    });
    expect(matches.get(ids.rejected!)).toMatchObject({
      state: 'matched',
      amount: '200.00',
      status: 'REJECTED',
      recordAmount: '200.00',
      eventStatus: 'REJECTED',
      fields: [],
    });
  });

  it('two workers fetching the same file at once import it once', async () => {
    // The file as it was before the worker imported it: announced, not imported.
    await db.query('DELETE FROM ledger_report_lines WHERE file_name = $1', [fileName]);
    await db.query('UPDATE ledger_reports SET imported_at = NULL, line_count = NULL WHERE file_name = $1', [fileName]);
    const core = () => createCoreClient(client);
    const [a, b] = [createReportFetcher(db, core().reports, OPTIONS), createReportFetcher(db, core().reports, OPTIONS)];
    const [doneA, doneB] = await Promise.all([a.runOnce(), b.runOnce()]);
    expect([...doneA, ...doneB]).toEqual([fileName]);
    expect(a.imported + b.imported).toBe(1);
    expect(
      (await db.query('SELECT count(*)::int AS n FROM ledger_report_lines WHERE file_name = $1', [fileName])).rows[0],
    ).toEqual({ n: 2 });
    expect(await pending()).toEqual([{ file_name: fileName, imported: true }]);
  });

  it('an imported file is not fetched again; a file the platform does not have yet waits for its retry', async () => {
    const core = createCoreClient(client);
    let downloads = 0;
    const counted = {
      download: (...args: Parameters<typeof core.reports.download>) => (downloads++, core.reports.download(...args)),
      fetchFile: core.reports.fetchFile,
    };
    // A REPORT for a day the platform has no file for (stored as the apply loop stores one).
    await db.query(
      "INSERT INTO ledger_reports (file_name, client_id, file_type, period, created_at, event_seq) VALUES ('transactions_daily_20260101.csv', $1, 'TRANSACTIONS', 'DAILY', '2026-01-01T10:00:00Z', -1)",
      [client.clientId],
    );
    try {
      const fetcher = createReportFetcher(db, counted, OPTIONS);
      expect(await fetcher.runOnce()).toEqual([]);
      // Only the missing file was asked for; the imported one is left alone.
      expect(downloads).toBe(1);
      expect(fetcher.lastErrors.get('transactions_daily_20260101.csv')).toMatch(/no DAILY file for 2026-01-01 yet/);
      expect(await fetcher.runOnce()).toEqual([]);
      expect(downloads).toBe(1);
    } finally {
      await db.query("DELETE FROM ledger_reports WHERE file_name = 'transactions_daily_20260101.csv'");
    }
  });
});

describe('which day a report file is asked for', () => {
  it('reads the date in the name (documented and sandbox forms), else created_at in Mexico City', () => {
    expect(operationDateOf('transactions_daily_20260224.csv', null)).toBe('2026-02-24');
    expect(operationDateOf('TRANSACTIONS_DAILY_2026-05-07.csv', null)).toBe('2026-05-07');
    expect(operationDateOf('TRANSACTIONS_DAILY_2026-05-07_2.csv', null)).toBe('2026-05-07');
    expect(operationDateOf('TRANSACTIONS_MONTHLY_2026-05.csv', null)).toBe('2026-05-01');
    expect(operationDateOf('report.csv', new Date('2026-02-25T03:00:00Z'))).toBe('2026-02-24');
    expect(operationDateOf('report_20261399.csv', new Date('2026-02-24T10:30:15Z'))).toBe('2026-02-24');
    expect(operationDateOf('report.csv', null)).toBeUndefined();
  });
});

describe('the worker’s report configuration', () => {
  it('without core credentials nothing is fetched; half of them, or staging without an address, is a clear error', () => {
    expect(loadConfig({}).reports).toBeUndefined();
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        return error.problems;
      }
    };
    const secret = 'sk_live_do_not_print_0123456789';
    expect(problems({ WORKER_CORE_API_KEY: secret })).toEqual([
      expect.stringMatching(/^WORKER_CORE_CLIENT_ID must be set/),
    ]);
    expect(problems({ WORKER_CORE_CLIENT_ID: 'not-a-uuid', WORKER_CORE_API_KEY: secret })).toEqual([
      expect.stringMatching(/WORKER_CORE_CLIENT_ID must be the client id/),
    ]);
    expect(problems({ WORKER_CORE_CLIENT_SECRET: secret })).toEqual([
      expect.stringMatching(/WORKER_CORE_CLIENT_ID and WORKER_CORE_API_KEY must be set/),
    ]);
    expect(
      problems({
        WORKER_CORE_ENVIRONMENT: 'staging',
        WORKER_CORE_CLIENT_ID: '11111111-1111-4111-8111-111111111111',
        WORKER_CORE_API_KEY: secret,
      }),
    ).toEqual([expect.stringMatching(/WORKER_CORE_BASE_URL must be set for WORKER_CORE_ENVIRONMENT=staging/)]);
    expect(problems({ WORKER_REPORT_POLL_MS: '5' })).toEqual([
      expect.stringMatching(/WORKER_REPORT_POLL_MS must be a whole number from 100/),
    ]);
    for (const env of [{ WORKER_CORE_API_KEY: secret }, { WORKER_CORE_CLIENT_SECRET: secret }] as Record<
      string,
      string
    >[])
      expect(problems(env).join('\n')).not.toContain(secret);
  });
});
