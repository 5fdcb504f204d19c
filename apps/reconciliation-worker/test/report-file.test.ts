// The report file round trip: the sandbox (its own process) announces a daily report through the
// gateway (its own process) and serves the file; the file imports cleanly and each of its lines
// matches three ways — our record, the platform's events, the report — once the worker has applied
// what the gateway stored.
import { parseReportCsv } from '@paykit/contracts';
import {
  createTransactionRecorder,
  importReport,
  reconcileOnce,
  registerReceivable,
  reportMatches,
  type ReportImportResult,
} from '@paykit/ledger';
import type { Database } from '@paykit/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME_CLABE, runFlows, startPipeline, type Pipeline } from './pipeline.ts';

describe('a report file the sandbox serves, imported and matched three ways', () => {
  let pipeline: Pipeline | undefined;
  let db: Database;
  const ids: Record<string, string> = {};
  let fileName = '';
  let csv = '';
  let imported: ReportImportResult | undefined;

  beforeAll(async () => {
    pipeline = await startPipeline('report-file');
    const { sandbox, ok } = pipeline;
    const seed = await sandbox.control.getSeed();
    if (seed.status !== 200) throw new Error('cannot read the sandbox seed');
    const client = seed.body.core.clients[0]!;

    Object.assign(ids, await runFlows(pipeline));

    fileName = ok(
      await sandbox.control.triggerReport({
        body: { clientId: client.clientId, fileType: 'TRANSACTIONS', period: 'DAILY' },
      }),
      'report',
    ).fileName;
    const file = await sandbox.control.getReportFile({ params: { fileName }, query: {} });
    if (file.status !== 200 || typeof file.body !== 'string')
      throw new Error(`getReportFile: ${file.status} ${JSON.stringify(file.body)}`);
    csv = file.body;

    db = await pipeline.stopGatewayAndOpenLedger();
    const record = createTransactionRecorder(db);
    for (const transaction of pipeline.created) await record(transaction);
    await registerReceivable(db, {
      id: 'INV-1200',
      beneficiaryAccount: ACME_CLABE,
      amount: '1200.00',
      reference: '4400001',
      dueDate: '2026-12-31',
    });
    const applied = await reconcileOnce(db);
    if (applied.parked !== 0) throw new Error(`${applied.parked} events were parked`);
    imported = await importReport(db, fileName, csv);
  }, 90_000);

  afterAll(async () => {
    await pipeline?.close();
  });

  it('imports cleanly, linked to the REPORT event the gateway stored', async () => {
    // Ours, the legs the platform adds (the reversal, the INT_CREDIT, the refund of the refused credit) and the credits.
    expect(parseReportCsv(csv)).toHaveLength(11);
    expect(imported).toMatchObject({ fileName, lines: 11, imported: true });
    expect(imported?.eventSeq).toMatch(/^\d+$/);
    expect(await importReport(db, fileName, csv)).toMatchObject({ imported: false, lines: 11 });
  });

  it('matches every line three ways: our record, the events, the report', async () => {
    const matches = new Map((await reportMatches(db, fileName)).map((m) => [m.transactionId, m]));
    expect(matches.size).toBe(11);
    const ours = { state: 'matched', fields: [] };
    const expected: Record<string, object> = {
      settled: { ...ours, status: 'LIQUIDATED', recordAmount: '300.00', eventStatus: 'LIQUIDATED' },
      rejected: { ...ours, status: 'REJECTED', recordAmount: '200.00', eventStatus: 'REJECTED' },
      reversed: { ...ours, status: 'REFUNDED', recordAmount: '150.00', eventStatus: 'REFUNDED' },
      reversal: { ...ours, status: 'LIQUIDATED', amount: '150.00', eventAmount: '150.00' },
      internal: { ...ours, status: 'LIQUIDATED', recordAmount: '75.00', eventStatus: 'LIQUIDATED' },
      creditMatched: {
        ...ours,
        amount: '1200.00',
        recordAmount: '1200.00',
        eventAmount: '1200.00',
        eventStatus: 'LIQUIDATED',
      },
      creditUnmatched: {
        ...ours,
        amount: '999.00',
        recordAmount: null,
        eventAmount: '999.00',
        eventStatus: 'LIQUIDATED',
      },
      creditRefused: {
        ...ours,
        status: 'REFUNDED',
        recordAmount: null,
        eventAmount: '640.00',
        eventStatus: 'REFUNDED',
      },
      // No STATUS_UPDATE is ever sent for a penny validation: our record agrees, no event says how it ended.
      pennyVerified: { state: 'pending', fields: [], amount: '0.01', recordAmount: '0.01', eventStatus: null },
    };
    for (const [name, want] of Object.entries(expected))
      expect({ name, ...matches.get(ids[name]!) }).toMatchObject({ name, ...want });
    const others = [...matches.values()].filter((m) => !Object.values(ids).includes(m.transactionId));
    // The INT_CREDIT of our internal transfer and the refund of the refused credit.
    expect(others.map((m) => [m.amount, m.state, m.eventAmount]).sort()).toEqual([
      ['640.00', 'matched', '640.00'],
      ['75.00', 'matched', '75.00'],
    ]);
  });

  it('a line the ledger contradicts is a mismatch naming the field', async () => {
    const tampered = csv.replace(/^(.*),300\.00,LIQUIDATED$/m, '$1,301.00,LIQUIDATED');
    expect(tampered).not.toBe(csv);
    await importReport(db, `TAMPERED_${fileName}`, tampered);
    const settled = (await reportMatches(db, `TAMPERED_${fileName}`)).find((m) => m.transactionId === ids.settled);
    expect(settled).toMatchObject({ state: 'mismatched', fields: ['amount (ours)'] });
  });
});
