// reports.download against a node:http platform that answers the documented bodies
// (packages/contracts/fixtures/documented), and reports.fetchFile against the file host it names:
// streamed, refused past maxBytes, cut at the deadline, no credentials sent, no signature printed.
import { readdir } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ConnectionError,
  createCoreClient,
  ReportFileError,
  TimeoutError,
  type CoreClient,
} from '@paykit/core-client';
import { zDownloadReportFileBody } from '@paykit/core-client/zod';
import { DOCUMENTED_FIXTURES, documentedFixture } from '@paykit/testing/documented-fixtures';

const FIXTURES = DOCUMENTED_FIXTURES;
const CLIENT_ID = 'c2d1d1e3-3340-4170-980e-e9269bbbc551';
const API_KEY = 'pk_reports_api_key_do_not_log_0001';
const SECRET = 'cs_reports_client_secret_never_logged_01';
const TOKEN = 'eyJreports.jwt.token-value-1';
const SIGNATURE = 'X-Amz-Signature=deadbeefsecretsignature';
const CSV =
  'transaction_id,tracking_key,transaction_date,sub_category,amount,status\n7f0c,PK1,2026-02-24 10:15:00,SPEI_DEBIT,1500.00,LIQUIDATED\n';

interface Seen {
  path: string;
  authorization: string | undefined;
  body: string;
}

let server: Server;
let origin: string;
let answer: () => { status: number; body: unknown };
const seen: Seen[] = [];

function read(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

async function fixture(file: string): Promise<Record<string, unknown>> {
  return documentedFixture(file).payload;
}

beforeAll(async () => {
  server = createServer((request, response) => {
    void (async () => {
      const body = await read(request);
      const url = request.url ?? '';
      seen.push({ path: url, authorization: request.headers.authorization, body });
      const json = (status: number, value: unknown) =>
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (url.endsWith('/auth/credential-tokens')) {
        return json(200, {
          id: '7d3f1a2b-0c4e-4f5a-8b6c-000000000001',
          client_id: CLIENT_ID,
          client_credential_id: '2c9b8a7f-6e5d-4c3b-9a1f-0e2d3c4b5a69',
          token: TOKEN,
          status: 'ACTIVE',
          expires_at: '2099-01-01 00:00:00.000000',
          created_at: '2026-05-07 12:00:00.000000-06:00',
          updated_at: '2026-05-07 12:00:00.000000-06:00',
          deleted_at: 'None',
        });
      }
      if (url.includes('/report/download')) {
        const a = answer();
        return json(a.status, a.body);
      }
      if (url.startsWith('/files/ok')) return response.writeHead(200, { 'content-type': 'text/csv' }).end(CSV);
      if (url.startsWith('/files/big')) {
        // No content-length: the limit must hold on the stream itself.
        response.writeHead(200, { 'content-type': 'text/csv' });
        for (let i = 0; i < 64; i++) response.write('x'.repeat(1024));
        return response.end();
      }
      if (url.startsWith('/files/declared'))
        return response
          .writeHead(200, { 'content-type': 'text/csv', 'content-length': String(10 * 1024 * 1024) })
          .end();
      if (url.startsWith('/files/stall')) {
        response.writeHead(200, { 'content-type': 'text/csv' });
        response.write('transaction_id,');
        return; // never ends
      }
      if (url.startsWith('/files/latin1')) return response.writeHead(200).end(Buffer.from([0x41, 0xe9, 0x0a]));
      return response.writeHead(403).end('<Error>Request has expired</Error>');
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen.length = 0;
});

const client = (): CoreClient =>
  createCoreClient({
    environment: 'staging',
    baseUrl: `${origin}/core`,
    clientId: CLIENT_ID,
    apiKey: API_KEY,
    clientSecret: SECRET,
    maxRetries: 0,
    timeoutMs: 2_000,
  });

describe('reports.download', () => {
  it('sends the documented body with the bearer and returns the documented answer', async () => {
    const documented = await fixture('answers/reports.download.json');
    answer = () => ({ status: 200, body: { ...documented, download_url: `${origin}/files/ok?${SIGNATURE}` } });
    const core = client();
    const result = await core.reports.download({ reportType: 'DAILY', operationDate: '2026-02-24' });
    expect(result).toEqual({
      fileName: 'transactions_daily_20260224.csv',
      downloadUrl: `${origin}/files/ok?${SIGNATURE}`,
      found: true,
    });
    const call = seen.find((s) => s.path.includes('/report/download'))!;
    expect(call.path).toBe(`/core/v1/reports/clients/${CLIENT_ID}/report/download`);
    expect(call.authorization).toBe(`Bearer ${TOKEN}`);
    // The guide's request, plus the client_id the field reference asks for.
    expect(JSON.parse(call.body)).toEqual({
      client_id: CLIENT_ID,
      ...(await fixture('requests/reports.download.json')),
    });

    expect(await core.reports.fetchFile(result.downloadUrl)).toBe(CSV);
    const file = seen.find((s) => s.path.startsWith('/files/'))!;
    // The address is its own authorisation: the bearer never goes to the file host.
    expect(file.authorization).toBeUndefined();
  });

  it("reads every documented answer verbatim, and every documented request passes the spec's body schema", async () => {
    const names = (await readdir(path.join(FIXTURES, 'answers')))
      .filter((n) => n.startsWith('reports.download'))
      .sort();
    expect(names).toEqual([
      'reports.download.account-statement.json',
      'reports.download.json',
      'reports.download.not-found.json',
    ]);
    for (const name of names) {
      const payload = await fixture(`answers/${name}`);
      answer = () => ({ status: 200, body: payload });
      const result = await client().reports.download(
        { reportType: 'DAILY', operationDate: '2026-02-24' },
        { headers: {} },
      );
      expect({ name, ...result }).toEqual({
        name,
        fileName: payload.file_name,
        downloadUrl: payload.download_url,
        found: payload.file_name !== '',
      });
    }
    for (const name of (await readdir(path.join(FIXTURES, 'requests'))).filter((n) =>
      n.startsWith('reports.download'),
    )) {
      expect({ name, ok: zDownloadReportFileBody.safeParse(await fixture(`requests/${name}`)).success }).toEqual({
        name,
        ok: true,
      });
    }
  });

  it('sends clabe_number for account statements; an empty answer is found: false', async () => {
    answer = () => ({ status: 200, body: { file_name: '', download_url: '' } });
    const result = await client().reports.download({
      reportType: 'DAILY_ACCOUNT_STATEMENT',
      operationDate: '2025-08-25',
      clabeNumber: '123456789012345678',
    });
    expect(result).toEqual({ fileName: '', downloadUrl: '', found: false });
    expect(JSON.parse(seen.find((s) => s.path.includes('/report/download'))!.body)).toEqual({
      client_id: CLIENT_ID,
      report_type: 'DAILY_ACCOUNT_STATEMENT',
      operation_date: '2025-08-25',
      clabe_number: '123456789012345678',
    });
  });

  it('refuses a malformed date before sending, and a platform 400 is a typed error', async () => {
    const core = client();
    await expect(core.reports.download({ reportType: 'DAILY', operationDate: '24/02/2026' })).rejects.toThrow(
      /operation_date/,
    );
    expect(seen.some((s) => s.path.includes('/report/download'))).toBe(false);
    answer = () => ({
      status: 400,
      body: {
        code: 3,
        message: 'API Error',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'DATA_ERROR',
            domain: 'CORE',
            metadata: { error_detail: 'clabe_number does not belong to the client', http_code: '400' },
          },
        ],
      },
    });
    const error = await core.reports
      .download({ reportType: 'DAILY', operationDate: '2026-02-24' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
  });
});

describe('reports.fetchFile', () => {
  const messageOf = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    const text = `${String(error)} ${JSON.stringify(error)}`;
    for (const secret of [SIGNATURE, API_KEY, SECRET, TOKEN]) expect(text).not.toContain(secret);
    return error as Error;
  };

  it('refuses a file past maxBytes, on the stream and from content-length', async () => {
    const core = client();
    const streamed = await messageOf(
      core.reports.fetchFile(`${origin}/files/big?${SIGNATURE}`, { maxBytes: 16 * 1024 }),
    );
    expect(streamed).toBeInstanceOf(ReportFileError);
    expect(streamed.message).toMatch(/more than the 16384 bytes allowed/);
    const declared = await messageOf(
      core.reports.fetchFile(`${origin}/files/declared?${SIGNATURE}`, { maxBytes: 1024 }),
    );
    expect(declared.message).toMatch(/10485760 bytes, more than the 1024 allowed/);
  });

  it('a body that stalls is cut at the deadline (TimeoutError); a closed port is a ConnectionError', async () => {
    const core = client();
    const started = performance.now();
    const stalled = await messageOf(core.reports.fetchFile(`${origin}/files/stall?${SIGNATURE}`, { timeoutMs: 300 }));
    expect(stalled).toBeInstanceOf(TimeoutError);
    expect(performance.now() - started).toBeLessThan(2_000);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await messageOf(core.reports.fetchFile(`http://127.0.0.1:${port}/f.csv?${SIGNATURE}`))).toBeInstanceOf(
      ConnectionError,
    );
  });

  it('an expired address, a caller abort, a non-UTF-8 file and a non-http address each say what to do', async () => {
    const core = client();
    const expired = await messageOf(core.reports.fetchFile(`${origin}/files/gone?${SIGNATURE}`));
    expect(expired).toMatchObject({ status: 403 });
    expect(expired.message).toMatch(/ask reports.download again/);
    const controller = new AbortController();
    const aborted = core.reports.fetchFile(`${origin}/files/stall`, { signal: controller.signal });
    const reason = new Error('shutting down');
    controller.abort(reason);
    await expect(aborted).rejects.toMatchObject({ name: 'UserAbortError', cause: reason });
    await expect(aborted).rejects.toThrow(/aborted by the caller's signal .* look it up/);
    expect((await messageOf(core.reports.fetchFile(`${origin}/files/latin1`))).message).toMatch(/not UTF-8/);
    expect((await messageOf(core.reports.fetchFile('file:///etc/passwd'))).message).toMatch(/must be http/);
  });
});
