// GET /_sandbox/core/reports/:fileName: the file a REPORT event announces, in the CSV format the
// ledger imports (parsed here with @paykit/contracts' parser, the ledger's own), listing the
// client's transactions of the report's period as the sandbox holds them; 404 for a name no
// REPORT carried.
import { parseReportCsv, REPORT_CSV_HEADER } from '@paykit/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ACME,
  BODEGA,
  BODEGA_ACCOUNT,
  bootCore,
  CLIENT,
  JUAN,
  SUPPLIER_BBVA,
  tokenFor,
  transferBody,
  type CoreHarness,
} from './core-helpers.ts';
import { call } from './helpers.ts';

let core: CoreHarness;

beforeEach(async () => {
  core = await bootCore();
});
afterEach(() => core.close());

const transfer = async (
  destination: string,
  amount: string,
  token?: string,
): Promise<{ id: string; trackingId: string }> => {
  const response = await call(`${core.sandbox.urls.core}/v1/transactions/money_out`, {
    method: 'POST',
    headers: core.bearer(token),
    body: transferBody({
      client_id: CLIENT,
      source_instrument_id: ACME,
      destination_instrument_id: destination,
      amount,
    }),
  });
  expect(response.status).toBe(200);
  return response.body as { id: string; trackingId: string };
};

const report = async (
  body: { fileType?: 'TRANSACTIONS' | 'ACCOUNT_STATEMENT'; period?: 'DAILY' | 'MONTHLY'; accountId?: string } = {},
) => {
  const answer = await core.control.triggerReport({
    body: { clientId: CLIENT, fileType: 'TRANSACTIONS', period: 'DAILY', ...body },
  });
  if (answer.status !== 200) throw new Error(`triggerReport: ${answer.status}`);
  return answer.body.fileName;
};

describe('GET /_sandbox/core/reports/:fileName', () => {
  it('serves the day’s transactions as text/csv in the import format, with their current status', async () => {
    const settled = await transfer(SUPPLIER_BBVA, '300.00');
    expect((await core.control.triggerSpeiSettle({ params: { transactionId: settled.id }, body: {} })).status).toBe(
      200,
    );
    const rejected = await transfer(SUPPLIER_BBVA, '200.00');
    expect((await core.control.triggerSpeiReject({ params: { transactionId: rejected.id }, body: {} })).status).toBe(
      200,
    );
    const credit = await core.control.triggerIncomingSpei({
      body: { beneficiaryClabe: '646180000000000012', amount: '1200.00' },
    });
    if (credit.status !== 200) throw new Error('incoming SPEI failed');
    const fileName = await report();

    const response = await fetch(`${core.sandbox.url}/_sandbox/core/reports/${fileName}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const text = await response.text();
    expect(text.split('\n')[0]).toBe(REPORT_CSV_HEADER);
    const lines = parseReportCsv(text).map(({ lineNo: _lineNo, ...line }) => line);
    expect(lines).toEqual([
      {
        transactionId: settled.id,
        trackingKey: settled.trackingId,
        transactionDate: '2026-05-07 12:00:00',
        subCategory: 'SPEI_DEBIT',
        amount: '300.00',
        status: 'LIQUIDATED',
      },
      {
        transactionId: rejected.id,
        trackingKey: rejected.trackingId,
        transactionDate: '2026-05-07 12:00:00',
        subCategory: 'SPEI_DEBIT',
        amount: '200.00',
        status: 'REJECTED',
      },
      {
        transactionId: credit.body.transactionId,
        trackingKey: credit.body.trackingKey,
        transactionDate: '2026-05-07 12:00:00',
        subCategory: 'SPEI_CREDIT',
        amount: '1200.00',
        status: 'LIQUIDATED',
      },
    ]);

    // The typed client reads it as text too.
    const typed = await core.control.getReportFile({ params: { fileName }, query: {} });
    expect(typed).toMatchObject({ status: 200, body: text });
  });

  it('keeps to the period: a DAILY file leaves out other days, a MONTHLY one takes the month', async () => {
    const first = await transfer(SUPPLIER_BBVA, '10.00');
    expect((await core.advance(86_400)).status).toBe(200);
    // The first token expired overnight.
    const second = await transfer(SUPPLIER_BBVA, '20.00', await tokenFor(core.sandbox));
    const ids = async (fileName: string) =>
      parseReportCsv((await core.control.getReportFile({ params: { fileName }, query: {} })).body as string).map(
        (l) => l.transactionId,
      );
    expect(await ids(await report())).toEqual([second.id]);
    expect(await ids(await report({ period: 'MONTHLY' }))).toEqual([first.id, second.id]);
  });

  it('an ACCOUNT_STATEMENT lists only the transactions that touch its account', async () => {
    await transfer(SUPPLIER_BBVA, '10.00');
    const internal = await transfer(BODEGA, '30.00');
    await transfer(JUAN, '5.00');
    const fileName = await report({ fileType: 'ACCOUNT_STATEMENT', accountId: BODEGA_ACCOUNT });
    const answer = await core.control.getReportFile({ params: { fileName }, query: {} });
    expect(parseReportCsv(answer.body as string).map((l) => [l.transactionId, l.subCategory])).toEqual([
      [internal.id, 'INT_DEBIT'],
    ]);
  });

  it('a report with no transactions is the header alone', async () => {
    const fileName = await report();
    const answer = await core.control.getReportFile({ params: { fileName }, query: {} });
    expect(answer).toMatchObject({ status: 200, body: `${REPORT_CSV_HEADER}\n` });
  });

  it('404 with a hint for a name no REPORT carried, or another client’s file', async () => {
    const unknown = await core.control.getReportFile({
      params: { fileName: 'TRANSACTIONS_DAILY_2020-01-01.csv' },
      query: {},
    });
    expect(unknown).toMatchObject({
      status: 404,
      body: {
        error: 'No report file TRANSACTIONS_DAILY_2020-01-01.csv.',
        hint: expect.stringContaining('POST /_sandbox/core/reports'),
      },
    });
    const fileName = await report();
    const otherClient = await core.control.getReportFile({
      params: { fileName },
      query: { clientId: '99999999-9999-4999-8999-999999999999' },
    });
    expect(otherClient.status).toBe(404);
    expect((await core.control.getReportFile({ params: { fileName }, query: { clientId: CLIENT } })).status).toBe(200);
  });
});
