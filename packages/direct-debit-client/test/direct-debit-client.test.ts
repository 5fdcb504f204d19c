// The direct debit client over real HTTP against the sandbox (a separate process).
import { randomUUID } from 'node:crypto';
import { documentedFixture } from '@paykit/testing/documented-fixtures';
import { startSandboxProcess, type SandboxProcess } from '@paykit/testing/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  createDirectDebitClient,
  RequestValidationError,
  UnauthorizedError,
  UnprocessableError,
  type ChargeCreateRequest,
  type DirectDebitInstrument,
  type InstrumentPage,
  withResponse,
} from '@paykit/direct-debit-client';
import type { LogEntry } from '@paykit/runtime';

const ORG = '77777777-7777-4777-8777-000000000001';
const API_KEY = 'dd_sandbox_key_acme_00000000000001';
const SEEDED_INSTRUMENTS = ['77777777-7777-4777-8777-000000000201', '77777777-7777-4777-8777-000000000202'];
const CUSTOMER = '77777777-7777-4777-8777-000000000101';
const ADDED = 1050;

let sandbox: SandboxProcess;
/** The ids of the 1,050 instruments added to the default org, in the order they were added. */
const added: string[] = [];

beforeAll(async () => {
  sandbox = await startSandboxProcess();
  for (let n = 0; n < ADDED; n++) added.push(randomUUID());
  // A CLABE with a valid control digit is not needed by the sandbox's seed schema (18 digits).
  const instruments = added.map((id, n) => ({
    id,
    customer_id: CUSTOMER,
    type: 'mx_clabe' as const,
    clabe: `01418000${String(n).padStart(10, '0')}`,
  }));
  const seeded = await sandbox.control.addSeed({
    body: { directDebit: { orgId: ORG, apiKeys: [API_KEY], customers: [], instruments } },
  });
  expect(seeded.status).toBe(200);
});

afterAll(async () => {
  await sandbox?.close();
});

function client(overrides: Partial<Parameters<typeof createDirectDebitClient>[0]> = {}) {
  return createDirectDebitClient({
    environment: 'sandbox',
    baseUrl: sandbox.urls['direct-debit'],
    apiKey: API_KEY,
    ...overrides,
  });
}

/** A fetch that counts what it sends. */
function countingFetch(): { fetch: typeof fetch; urls: string[] } {
  const urls: string[] = [];
  return {
    urls,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      urls.push(request.url);
      return globalThis.fetch(request);
    },
  };
}

describe('instruments.list', () => {
  it('walks 1,050 added instruments plus the seeded ones with no loss or repeat, in creation order', async () => {
    const counter = countingFetch();
    const seen: DirectDebitInstrument[] = [];
    for await (const instrument of client({ fetch: counter.fetch }).instruments.list({ limit: 100 }))
      seen.push(instrument);

    const ids = seen.map((i) => i.id);
    expect(ids).toHaveLength(ADDED + SEEDED_INSTRUMENTS.length);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...SEEDED_INSTRUMENTS, ...added]);
    expect(seen.every((i) => i.org_id === ORG)).toBe(true);
    // 1,052 at 100 a page: 11 requests, the first without a cursor, every later one with one.
    expect(counter.urls).toHaveLength(11);
    expect(new URL(counter.urls[0]!).searchParams.has('cursor')).toBe(false);
    expect(counter.urls.slice(1).every((u) => new URL(u).searchParams.get('cursor'))).toBe(true);
    expect(counter.urls.every((u) => new URL(u).searchParams.get('limit') === '100')).toBe(true);
  });

  it('requests nothing until iterated and stops requesting when the loop breaks', async () => {
    const counter = countingFetch();
    const iterable = client({ fetch: counter.fetch }).instruments.list({ limit: 100 });
    expect(counter.urls).toHaveLength(0);
    let n = 0;
    for await (const _instrument of iterable) if (++n === 150) break;
    expect(counter.urls).toHaveLength(2);
  });

  it('pages(): 1,052 instruments at 400 a page are three pages, the last with has_next false', async () => {
    const pages: InstrumentPage[] = [];
    for await (const page of client().instruments.pages({ limit: 400 })) pages.push(page);
    expect(pages.map((p) => p.instruments.length)).toEqual([400, 400, 252]);
    expect(pages.map((p) => p.has_next)).toEqual([true, true, false]);
    expect(pages[2]!.next_cursor).toBeNull();
    expect(pages.flatMap((p) => p.instruments.map((i) => i.id))).toEqual([...SEEDED_INSTRUMENTS, ...added]);
  });

  it('page(): one page at a time, continuing from next_cursor', async () => {
    const dd = client();
    const first = await dd.instruments.page({ limit: 2 });
    expect(first.instruments.map((i) => i.id)).toEqual(SEEDED_INSTRUMENTS);
    expect(first.limit).toBe(2);
    expect(first.has_next).toBe(true);
    expect(first.has_previous).toBe(false);
    expect(typeof first.next_cursor).toBe('string');

    const second = await dd.instruments.page({ limit: 3, cursor: first.next_cursor });
    expect(second.instruments.map((i) => i.id)).toEqual(added.slice(0, 3));
    expect(second.has_previous).toBe(true);
    expect(second.instruments[0]!.mx_clabe).toMatchObject({ identifier: '014180000000000000' });
  });

  it('the default page size is the service default, 100', async () => {
    const page = await client().instruments.page();
    expect(page.limit).toBe(100);
    expect(page.instruments).toHaveLength(100);
  });
});

describe('errors', () => {
  it('a 422 is an UnprocessableError exposing detail[{loc,msg,type}]', async () => {
    const error = await client()
      .instruments.page({ limit: 0 })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(UnprocessableError);
    const unprocessable = error as UnprocessableError;
    expect(unprocessable.status).toBe(422);
    expect(unprocessable.product).toBe('direct-debit');
    expect(unprocessable.detail).toEqual([
      { loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal' },
    ]);
  });

  it('a cursor that is not the service’s is a 422 on [query, cursor]', async () => {
    const error = await client()
      .instruments.page({ cursor: 'not-a-cursor' })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(UnprocessableError);
    expect((error as UnprocessableError).detail?.map((d) => d.loc)).toEqual([['query', 'cursor']]);
    expect((error as UnprocessableError).detail?.[0]?.type).toBe('value_error');
  });

  it('a wrong API key is an UnauthorizedError that names neither key, in its message, JSON or logs', async () => {
    const wrongKey = 'dd_wrong_key_0123456789abcdef0123';
    const log: LogEntry[] = [];
    const error = await client({ apiKey: wrongKey, logger: (entry) => log.push(entry) })
      .instruments.page()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect((error as UnauthorizedError).status).toBe(401);
    const everything = JSON.stringify([
      String(error),
      (error as Error).message,
      error,
      (error as Error).cause ?? null,
      log,
    ]);
    expect(everything).not.toContain(wrongKey);
    expect(everything).not.toContain(API_KEY);
    expect(log.length).toBeGreaterThan(0);
  });

  it('a body that fails the spec is refused before it is sent (RequestValidationError)', async () => {
    const counter = countingFetch();
    const error = await client({ fetch: counter.fetch })
      .customers.create({
        name: 'Ana',
        document_type: 'mx_rfc',
        document_number: 'LOAA800101ABC',
        email: 'not an email',
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues.map((i) => i.path)).toEqual([['body', 'email']]);
    expect(JSON.stringify(error)).not.toContain('not an email');
    expect(counter.urls).toHaveLength(0);
  });

  it('refuses to start without an API key, and staging without a baseUrl', () => {
    expect(() => createDirectDebitClient({ environment: 'sandbox', apiKey: '' })).toThrow(ConfigurationError);
    expect(() => createDirectDebitClient({ environment: 'staging', apiKey: API_KEY })).toThrow(ConfigurationError);
  });
});

describe('customers and charges', () => {
  it('customers.create sends x-api-key and returns the 201 customer', async () => {
    const customer = await client().customers.create({
      name: 'Carla Ruiz',
      document_type: 'mx_rfc',
      document_number: 'RUCC900101AB1',
      email: 'carla@example.com',
    });
    expect(customer).toMatchObject({
      name: 'Carla Ruiz',
      document_type: 'mx_rfc',
      document_number: 'RUCC900101AB1',
      email: 'carla@example.com',
      org_id: ORG,
    });
    expect(customer.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number.isNaN(Date.parse(customer.created_at))).toBe(false);
  });

  it('instruments.create sends the documented mx_clabe body and the card body, and returns the instruments', async () => {
    const dd = client();
    const clabe = await dd.instruments.create({
      type: 'mx_clabe',
      customer_id: CUSTOMER,
      mx_clabe: { identifier: '012180015118333755' },
    });
    expect(clabe).toMatchObject({
      type: 'mx_clabe',
      customer_id: CUSTOMER,
      mx_clabe: { identifier: '012180015118333755' },
    });
    const card = await dd.instruments.create({
      type: 'mx_direct_debit_card',
      customer_id: CUSTOMER,
      mx_direct_debit_card: { card_number: '5579072268574100', bank: 'mx_santander' },
    });
    expect(card.mx_direct_debit_card).toEqual({ card_number: '5579072268574100', bank: 'mx_santander' });
  });

  it('charges.create sends both documented forms and returns the pending charge', async () => {
    const dd = client();
    // The documentation's inline charge, exactly as its page shows it.
    const documented = documentedFixture<{ payload: ChargeCreateRequest }>(
      'direct-debit/request.charges.create.inline.json',
    );
    const inline = await dd.charges.create(documented.payload);
    expect(inline).toMatchObject({
      status: 'pending',
      amount: 100,
      currency: 'mxn',
      inline_instrument: { identifier: '012180015118333755', bank: null },
      customer_id: null,
    });
    const stored = await dd.charges.create({
      currency: 'mxn',
      amount: 99.5,
      reference: 'sub-2',
      customer_id: CUSTOMER,
      instrument_id: SEEDED_INSTRUMENTS[0]!,
    });
    expect(stored).toMatchObject({
      status: 'pending',
      amount: 99.5,
      instrument_id: SEEDED_INSTRUMENTS[0],
      inline_instrument: null,
    });
  });

  it('charges.create refuses a mixed or incomplete body, a string amount and a bad identifier before sending, never showing the number', async () => {
    const counter = countingFetch();
    const dd = client({ fetch: counter.fetch });
    const card = '5579072268574100';
    const bodies: unknown[] = [
      {
        currency: 'mxn',
        amount: 1,
        reference: 'r',
        customer_id: CUSTOMER,
        instrument_id: SEEDED_INSTRUMENTS[0],
        inline_instrument: { type: 'mx_clabe', identifier: '012180015118333755' },
      },
      {
        currency: 'mxn',
        amount: '100.00',
        reference: 'r',
        customer_id: CUSTOMER,
        instrument_id: SEEDED_INSTRUMENTS[0],
      },
      { currency: 'mxn', amount: 1.005, reference: 'r', customer_id: CUSTOMER, instrument_id: SEEDED_INSTRUMENTS[0] },
      {
        currency: 'mxn',
        amount: 1,
        reference: 'r',
        inline_customer: { name: 'A', document_type: 'mx_rfc', document_number: 'X' },
        inline_instrument: { type: 'mx_direct_debit_card', identifier: `${card}99x`, bank: 'mx_santander' },
      },
      { currency: 'usd', amount: 1, reference: 'r', customer_id: CUSTOMER },
    ];
    for (const body of bodies) {
      const error = await dd.charges.create(body as never).catch((e: unknown) => e);
      expect(error, JSON.stringify(body)).toBeInstanceOf(RequestValidationError);
      expect(String((error as Error).message)).not.toContain(card);
    }
    expect(counter.urls).toEqual([]);
  });
});

describe('card data and answers', () => {
  const PAN = '4111111111111111';

  it('a card instrument created through the sandbox is logged with its number masked, both ways', async () => {
    const entries: LogEntry[] = [];
    const dd = client({ logger: (e) => entries.push(e) });
    const card = await dd.instruments.create({
      type: 'mx_direct_debit_card',
      customer_id: CUSTOMER,
      mx_direct_debit_card: { card_number: PAN, bank: 'mx_santander' },
    });
    // The caller gets the answer as the platform sent it; only what is printed is masked.
    expect(JSON.stringify(card)).toContain(PAN.slice(-4));
    expect(entries.map((e) => e.event)).toEqual(['request', 'response']);
    const logged = JSON.stringify(entries);
    expect(logged).not.toContain(PAN);
    expect(logged).not.toContain(API_KEY);
    expect(logged).toContain('************1111');
  });

  it('the seeded card instrument is listed with its number masked in the log', async () => {
    const entries: LogEntry[] = [];
    const dd = client({ logger: (e) => entries.push(e) });
    const page = await dd.instruments.page({ limit: 5 });
    expect(JSON.stringify(page)).toContain(PAN);
    expect(JSON.stringify(entries)).not.toContain(PAN);
    expect(JSON.stringify(entries)).toContain('************1111');
  });

  it('withResponse gives the status, headers and request id of a successful call', async () => {
    const entries: LogEntry[] = [];
    const dd = client({ logger: (e) => entries.push(e) });
    const { data, response } = await withResponse(
      dd.customers.create({ name: 'Ana', document_type: 'passport', document_number: 'G12345678' }),
    );
    expect(data.name).toBe('Ana');
    expect(response.status).toBe(201);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.requestId).toBe(entries[0]?.requestId);
    expect(response.requestId).toMatch(/^[0-9a-f-]{36}$/);
    await expect(withResponse(Promise.resolve({ id: 'not from a call' }))).rejects.toThrow(
      /not the result of a paykit operation/,
    );
  });
});
