// The documented report download: POST /v1/reports/clients/{client_id}/report/download answers
// the announced file's name and an address that serves it (no bearer, short-lived on the sandbox
// clock); and the documented event forms the sandbox sends (compact MONEY_IN date, the older
// STATUS_UPDATE behind its setting).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { zDownloadReportFileResponse, zMoneyInEvent, zStatusUpdateEvent } from '@paykit/core-client/zod';
import { parseReportCsv } from '@paykit/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxOptions } from '../src/index.ts';
import {
  ACME,
  bootCore,
  CLIENT,
  deliveriesAt,
  expectCoreError,
  OTHER_CLIENT,
  OTHER_KEY,
  OTHER_SECRET,
  addOtherClient,
  SUPPLIER_BBVA,
  tokenFor,
  transferBody,
  type CoreHarness,
} from './core-helpers.ts';
import { call } from './helpers.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../../../packages/contracts/fixtures/documented');
const ACME_CLABE = '646180000000000012';

let core: CoreHarness;
afterEach(() => core.close());

const start = async (options: SandboxOptions = {}) => {
  core = await bootCore(options);
};
const download = (body: unknown, token?: string, clientId = CLIENT) =>
  call(`${core.sandbox.urls.core}/v1/reports/clients/${clientId}/report/download`, {
    method: 'POST',
    headers: core.bearer(token),
    body,
  });
const moneyOut = async (amount: string) => {
  const response = await call(`${core.sandbox.urls.core}/v1/transactions/money_out`, {
    method: 'POST',
    headers: core.bearer(),
    body: transferBody({
      client_id: CLIENT,
      source_instrument_id: ACME,
      destination_instrument_id: SUPPLIER_BBVA,
      amount,
    }),
  });
  expect(response.status).toBe(200);
  return response.body as { id: string; trackingId: string };
};
const report = async (
  fileType: 'TRANSACTIONS' | 'ACCOUNT_STATEMENT' = 'TRANSACTIONS',
  period: 'DAILY' | 'MONTHLY' = 'DAILY',
) => {
  const answer = await core.control.triggerReport({ body: { clientId: CLIENT, fileType, period } });
  if (answer.status !== 200) throw new Error(`triggerReport: ${answer.status}`);
  return answer.body.fileName;
};

describe('POST /v1/reports/clients/{client_id}/report/download', () => {
  it('answers the announced file and serves it, without a bearer, as the file the control API shows', async () => {
    await start();
    const tx = await moneyOut('300.00');
    const fileName = await report();
    const answer = await download({ client_id: CLIENT, report_type: 'DAILY', operation_date: '2026-05-07' });
    expect(answer.status).toBe(200);
    expect(zDownloadReportFileResponse.safeParse(answer.body).success).toBe(true);
    expect(answer.body.file_name).toBe(fileName);
    expect(answer.body.download_url).toMatch(
      new RegExp(`^${core.sandbox.urls.core}/v1/reports/files/[A-Za-z0-9_-]{32}$`),
    );

    const file = await fetch(answer.body.download_url as string);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const text = await file.text();
    expect(parseReportCsv(text).map((l) => [l.transactionId, l.amount])).toEqual([[tx.id, '300.00']]);
    expect(await core.control.getReportFile({ params: { fileName }, query: {} })).toMatchObject({
      status: 200,
      body: text,
    });
  });

  it('takes the guide’s documented body (no client_id) as it is published', async () => {
    await start();
    const fixture = JSON.parse(await readFile(path.join(FIXTURES, 'requests/reports.download.json'), 'utf8')) as {
      payload: Record<string, string>;
    };
    // The guide's date is 2026-02-24: the sandbox has no file that day, so the answer is the documented empty one.
    const answer = await download(fixture.payload);
    expect(answer).toMatchObject({ status: 200, body: { file_name: '', download_url: '' } });
  });

  it('a day, month or type without a file is the empty answer; a MONTHLY date anywhere in the month finds the month', async () => {
    await start();
    await moneyOut('10.00');
    const monthly = await report('TRANSACTIONS', 'MONTHLY');
    expect((await download({ report_type: 'DAILY', operation_date: '2026-05-07' })).body).toEqual({
      file_name: '',
      download_url: '',
    });
    expect((await download({ report_type: 'MONTHLY', operation_date: '2026-05-25' })).body.file_name).toBe(monthly);
    expect((await download({ report_type: 'MONTHLY', operation_date: '2026-06-01' })).body).toEqual({
      file_name: '',
      download_url: '',
    });
  });

  it('the address expires on the sandbox clock, and an unknown one is a 404', async () => {
    await start({ settings: { core: { reportUrlTtlSeconds: 60 } } });
    await report();
    const { body } = await download({ report_type: 'DAILY', operation_date: '2026-05-07' });
    expect((await fetch(body.download_url as string)).status).toBe(200);
    await core.advance(60);
    const expired = await call(body.download_url as string);
    expect(expectCoreError(expired, 404, 'RESOURCE_NOT_FOUND')).toMatch(/expired/);
    expectCoreError(await call(`${core.sandbox.urls.core}/v1/reports/files/not-a-token`), 404, 'RESOURCE_NOT_FOUND');
  });

  it('account statements need the CLABE of one of the client’s accounts', async () => {
    await start();
    const fileName = await report('ACCOUNT_STATEMENT');
    expectCoreError(
      await download({ report_type: 'DAILY_ACCOUNT_STATEMENT', operation_date: '2026-05-07' }),
      400,
      'MISSING_REQUIRED_FIELDS',
    );
    expectCoreError(
      await download({
        report_type: 'DAILY_ACCOUNT_STATEMENT',
        operation_date: '2026-05-07',
        clabe_number: '012180000045678907',
      }),
      400,
      'DATA_ERROR',
    );
    const answer = await download({
      report_type: 'DAILY_ACCOUNT_STATEMENT',
      operation_date: '2026-05-07',
      clabe_number: ACME_CLABE,
    });
    expect(answer.body.file_name).toBe(fileName);
  });

  it('refuses bad input with the core error: a bad date or type, another client’s id, no bearer', async () => {
    await start();
    expectCoreError(await download({ report_type: 'DAILY', operation_date: '20260507' }), 400, 'DATA_ERROR');
    expectCoreError(await download({ report_type: 'WEEKLY', operation_date: '2026-05-07' }), 400, 'DATA_ERROR');
    expectCoreError(await download({ report_type: 'DAILY' }), 400, 'MISSING_REQUIRED_FIELDS');
    expectCoreError(
      await download({ client_id: OTHER_CLIENT, report_type: 'DAILY', operation_date: '2026-05-07' }),
      400,
      'DATA_ERROR',
    );
    await addOtherClient(core.sandbox);
    const other = await tokenFor(core.sandbox, OTHER_CLIENT, OTHER_KEY, OTHER_SECRET);
    expectCoreError(await download({ report_type: 'DAILY', operation_date: '2026-05-07' }, other), 401, 'UNAUTHORIZED');
    expectCoreError(
      await call(`${core.sandbox.urls.core}/v1/reports/clients/${CLIENT}/report/download`, {
        method: 'POST',
        body: {},
      }),
      401,
      'UNAUTHORIZED',
    );
  });
});

describe('the documented event forms', () => {
  it('MONEY_IN transaction_date is compact by default, the field reference’s layout with moneyInDateForm', async () => {
    for (const [form, expected] of [
      ['compact', '20260507'],
      ['date-time', '2026-05-07 12:00:00'],
    ] as const) {
      await start({ settings: { core: { moneyInDateForm: form } } });
      const receiver = await core.receiver();
      await core.subscribe(receiver, ['MONEY_IN']);
      expect(
        (await core.control.triggerIncomingSpei({ body: { beneficiaryClabe: ACME_CLABE, amount: '5.00' } })).status,
      ).toBe(200);
      await core.advance(1);
      expect(deliveriesAt(receiver, '/MONEY_IN', zMoneyInEvent).map((e) => e.body.transaction_date)).toEqual([
        expected,
      ]);
      await core.close();
    }
    core = await bootCore(); // for afterEach
  });

  it('statusUpdateForm "older" sends only {tracking_key, status, update_at}', async () => {
    await start({ settings: { core: { statusUpdateForm: 'older', speiSettleAfterSeconds: 5 } } });
    const receiver = await core.receiver();
    await core.subscribe(receiver, ['STATUS_UPDATE']);
    const tx = await moneyOut('12.00');
    await core.advance(5);
    const bodies = deliveriesAt(receiver, '/STATUS_UPDATE', zStatusUpdateEvent).map((e) => e.body);
    expect(bodies).toEqual([
      { tracking_key: tx.trackingId, status: 'IN_PROGRESS', update_at: '2026-05-07T12:00:00.000-06:00' },
      { tracking_key: tx.trackingId, status: 'LIQUIDATED', update_at: '2026-05-07T12:00:05.000-06:00' },
    ]);
  });
});
