// The direct debit service over real HTTP: x-api-key, customers, cursor-paginated instruments,
// instrument creation, charges in the documented forms, and FastAPI-style 422 details for every kind of bad input.
import { readFileSync } from 'node:fs';
import {
  zCreateChargeResponse,
  zCreateCustomerResponse,
  zCreateInstrumentResponse,
  zListInstrumentsResponse,
} from '@paykit/direct-debit-client/zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_SEED, type Sandbox } from '../src/index.ts';
import { isValidClabe } from '../src/clabe.ts';
import { call, controlClient, startTestSandbox } from './helpers.ts';

const KEY = 'dd_sandbox_key_acme_00000000000001';
const ORG = '77777777-7777-4777-8777-000000000001';
/** A documented payload of packages/contracts/fixtures/documented/direct-debit. */
const documented = (file: string): unknown =>
  (
    JSON.parse(
      readFileSync(
        new URL(`../../../packages/contracts/fixtures/documented/direct-debit/${file}`, import.meta.url),
        'utf8',
      ),
    ) as { payload: unknown }
  ).payload;
const CUSTOMER = {
  name: 'Rosa Díaz',
  document_type: 'mx_rfc',
  document_number: 'DIRR900101AB1',
  email: 'rosa@example.com',
  phone_number: '+525512345678',
};

describe('direct debit', () => {
  let sandbox: Sandbox;
  const url = (path: string) => `${sandbox.urls['direct-debit']}${path}`;
  const withKey = (headers: Record<string, string> = {}) => ({ 'x-api-key': KEY, ...headers });
  const list = (query = '', key = KEY) => call(url(`/instruments${query}`), { headers: { 'x-api-key': key } });

  beforeEach(async () => {
    sandbox = await startTestSandbox();
  });
  afterEach(() => sandbox.close());

  describe('authentication', () => {
    it('answers 401 with what to do when the key is missing, on every operation', async () => {
      for (const [method, path, body] of [
        ['POST', '/customers', CUSTOMER],
        ['GET', '/instruments', undefined],
        ['POST', '/charges', { amount: 1 }],
        ['POST', '/instruments', { type: 'mx_clabe' }],
      ] as const) {
        const response = await call(url(path), { method, ...(body ? { body } : {}) });
        expect(response.status, `${method} ${path}`).toBe(401);
        expect(response.body.detail).toContain('X-API-Key');
      }
    });

    it('answers 401 for a key it does not know, without echoing it', async () => {
      const response = await call(url('/customers'), {
        headers: { 'x-api-key': 'dd_wrong_key_000000000000000001' },
        body: CUSTOMER,
      });
      expect(response.status).toBe(401);
      expect(response.body.detail).toMatch(/^Invalid API key/);
      expect(JSON.stringify(response.body)).not.toContain('dd_wrong_key');
    });

    it('reads the header whatever its spelling (header names are case-insensitive)', async () => {
      for (const name of ['X-API-Key', 'x-api-key', 'X-API-KEY']) {
        const response = await call(url('/instruments'), { headers: { [name]: KEY } });
        expect(response.status, name).toBe(200);
      }
    });

    it('checks the key before the body: no key and malformed JSON is 401', async () => {
      const response = await call(url('/customers'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        raw: '{"name":',
      });
      expect(response.status).toBe(401);
    });

    it('accepts keys added through the control API, and forgets them on reset', async () => {
      const control = controlClient(sandbox);
      const added = 'dd_sandbox_key_added_000000000001';
      expect((await list('', added)).status).toBe(401);
      await control.addSeed({
        body: { directDebit: { orgId: ORG, apiKeys: [added], customers: [], instruments: [] } },
      });
      expect((await list('', added)).status).toBe(200);
      await control.reset({ body: {} });
      expect((await list('', added)).status).toBe(401);
      expect((await list('', KEY)).status).toBe(200);
    });
  });

  describe('POST /customers', () => {
    it('creates a customer: 201, the request fields, the org, ids and timestamps', async () => {
      const response = await call(url('/customers'), { headers: withKey(), body: CUSTOMER });
      expect(response.status).toBe(201);
      expect(zCreateCustomerResponse.safeParse(response.body).success).toBe(true);
      expect(response.body).toEqual({
        ...CUSTOMER,
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        org_id: ORG,
        customer_metadata: null,
        created_at: '2026-05-07T18:00:00.000Z',
        updated_at: null,
      });
      expect(sandbox.products.directDebit.customers.get(response.body.id)?.name).toBe('Rosa Díaz');
    });

    it('answers null for the optional fields it was not sent, and ignores unknown ones', async () => {
      const response = await call(url('/customers'), {
        headers: withKey(),
        body: { name: 'Ana', document_type: 'passport', document_number: 'G1234567', nickname: 'x' },
      });
      expect(response.status).toBe(201);
      expect(zCreateCustomerResponse.safeParse(response.body).success).toBe(true);
      expect(response.body).toMatchObject({ email: null, phone_number: null });
      expect(response.body).not.toHaveProperty('nickname');
    });

    it('answers 422 with one detail item per missing field', async () => {
      const response = await call(url('/customers'), { headers: withKey(), body: { email: 'a@example.com' } });
      expect(response.status).toBe(422);
      expect(response.body).toEqual({
        detail: [
          { loc: ['body', 'name'], msg: 'Field required', type: 'missing' },
          { loc: ['body', 'document_type'], msg: 'Field required', type: 'missing' },
          { loc: ['body', 'document_number'], msg: 'Field required', type: 'missing' },
        ],
      });
    });

    it('answers 422 for wrong types and a malformed email', async () => {
      const response = await call(url('/customers'), {
        headers: withKey(),
        body: { name: 42, document_type: 'mx_rfc', document_number: ['x'], email: 'not-an-email', phone_number: 5 },
      });
      expect(response.status).toBe(422);
      expect(response.body.detail).toEqual([
        { loc: ['body', 'name'], msg: 'Input should be a valid string', type: 'string_type' },
        { loc: ['body', 'document_number'], msg: 'Input should be a valid string', type: 'string_type' },
        { loc: ['body', 'email'], msg: expect.stringContaining('not a valid email address'), type: 'value_error' },
        { loc: ['body', 'phone_number'], msg: 'Input should be a valid string', type: 'string_type' },
      ]);
    });

    it('answers 422 json_invalid for malformed JSON', async () => {
      const response = await call(url('/customers'), {
        method: 'POST',
        headers: withKey({ 'content-type': 'application/json' }),
        raw: '{"name": "Ana",',
      });
      expect(response.status).toBe(422);
      expect(response.body).toEqual({ detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] });
    });

    it('answers 422 for a body that is not an object, an empty body and a non-JSON body', async () => {
      const array = await call(url('/customers'), { headers: withKey(), body: [CUSTOMER] });
      expect(array.status).toBe(422);
      expect(array.body.detail).toEqual([
        { loc: ['body'], msg: expect.stringContaining('valid dictionary'), type: 'model_attributes_type' },
      ]);

      const empty = await call(url('/customers'), {
        method: 'POST',
        headers: withKey({ 'content-type': 'application/json' }),
        raw: '',
      });
      expect(empty.status).toBe(422);
      expect(empty.body.detail).toEqual([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);

      const none = await call(url('/customers'), { method: 'POST', headers: withKey() });
      expect(none.status).toBe(422);
      expect(none.body.detail).toEqual([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);

      const text = await call(url('/customers'), {
        method: 'POST',
        headers: withKey({ 'content-type': 'text/plain' }),
        raw: 'name=Ana',
      });
      expect(text.status).toBe(422);
      expect(text.body.detail[0]).toMatchObject({ loc: ['body'], type: 'model_attributes_type' });

      const form = await call(url('/customers'), {
        method: 'POST',
        headers: withKey({ 'content-type': 'application/x-www-form-urlencoded' }),
        raw: 'name=Ana',
      });
      expect(form.status).toBe(422);
      expect(form.body.detail[0]).toMatchObject({ loc: ['body'], type: 'model_attributes_type' });
    });

    it('reads a body sent without a content type as JSON (as FastAPI does)', async () => {
      // fetch adds text/plain to a string body, but none to bytes.
      const response = await fetch(url('/customers'), {
        method: 'POST',
        headers: withKey(),
        body: new TextEncoder().encode(JSON.stringify(CUSTOMER)),
      });
      expect(response.status).toBe(201);
      expect(((await response.json()) as { name: string }).name).toBe('Rosa Díaz');
    });

    it('answers 422 for a body over the size limit', async () => {
      await sandbox.close();
      sandbox = await startTestSandbox({ settings: { bodyLimitBytes: 512 } });
      const response = await call(url('/customers'), {
        headers: withKey(),
        body: { ...CUSTOMER, name: 'x'.repeat(2000) },
      });
      expect(response.status).toBe(422);
      expect(response.body.detail).toEqual([
        { loc: ['body'], msg: expect.stringContaining('larger than 512 bytes'), type: 'value_error' },
      ]);
    });
  });

  describe('GET /instruments', () => {
    it('lists the seeded instruments with every field of the schema', async () => {
      const response = await list();
      expect(response.status).toBe(200);
      expect(zListInstrumentsResponse.safeParse(response.body).success).toBe(true);
      expect(response.body).toEqual({
        instruments: [
          {
            id: '77777777-7777-4777-8777-000000000201',
            org_id: ORG,
            customer_id: '77777777-7777-4777-8777-000000000101',
            type: 'mx_clabe',
            description: null,
            status: 'active',
            mx_clabe: { identifier: '014180000076543216', can_credit: true, can_debit: true },
            mx_direct_debit_card: null,
            currency: 'mxn',
            ownership_verification_result: null,
            ownership_verification_result_at: null,
            created_at: '2026-05-07T18:00:00.000Z',
            updated_at: null,
          },
          {
            id: '77777777-7777-4777-8777-000000000202',
            org_id: ORG,
            customer_id: '77777777-7777-4777-8777-000000000102',
            type: 'mx_direct_debit_card',
            description: null,
            status: 'active',
            mx_clabe: null,
            mx_direct_debit_card: { card_number: '4111111111111111', bank: 'mx_bbva' },
            currency: 'mxn',
            ownership_verification_result: null,
            ownership_verification_result_at: null,
            created_at: '2026-05-07T18:00:00.000Z',
            updated_at: null,
          },
        ],
        limit: 100,
        has_next: false,
        has_previous: false,
        next_cursor: null,
      });
    });

    it('pages with an opaque cursor', async () => {
      const first = await list('?limit=1');
      expect(first.status).toBe(200);
      expect(zListInstrumentsResponse.safeParse(first.body).success).toBe(true);
      expect(first.body).toMatchObject({
        limit: 1,
        has_next: true,
        has_previous: false,
        next_cursor: expect.any(String),
      });
      expect(first.body.instruments.map((i: { id: string }) => i.id)).toEqual(['77777777-7777-4777-8777-000000000201']);
      // Opaque: neither an offset nor an instrument id a client could build or reuse.
      expect(first.body.next_cursor).not.toMatch(/^\d+$/);
      expect(first.body.next_cursor).not.toContain('77777777');
      const second = await list(`?limit=1&cursor=${encodeURIComponent(first.body.next_cursor)}`);
      expect(second.status).toBe(200);
      expect(zListInstrumentsResponse.safeParse(second.body).success).toBe(true);
      expect(second.body).toMatchObject({ limit: 1, has_next: false, has_previous: true, next_cursor: null });
      expect(second.body.instruments.map((i: { id: string }) => i.id)).toEqual([
        '77777777-7777-4777-8777-000000000202',
      ]);
    });

    it('walks 1,050 instruments with no loss or repeat; instruments added mid-walk appear only at the end', async () => {
      const generated = sandbox.products.directDebit.addInstruments(1048);
      expect(
        generated.every(
          (i) => i.mx_clabe !== null && 'identifier' in i.mx_clabe && isValidClabe(i.mx_clabe.identifier),
        ),
      ).toBe(true);
      const expected = [
        '77777777-7777-4777-8777-000000000201',
        '77777777-7777-4777-8777-000000000202',
        ...generated.map((i) => i.id),
      ];
      expect(expected).toHaveLength(1050);

      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const response = await list(`?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(response.status).toBe(200);
        expect(zListInstrumentsResponse.safeParse(response.body).success).toBe(true);
        expect(response.body.has_previous).toBe(pages > 0);
        seen.push(...response.body.instruments.map((i: { id: string }) => i.id));
        cursor = response.body.next_cursor;
        expect(response.body.has_next).toBe(cursor !== null);
        pages++;
        // New instruments between page reads: they must not shift the pages still to come.
        if (pages === 3) expected.push(...sandbox.products.directDebit.addInstruments(7).map((i) => i.id));
        if (pages === 8) expected.push(...sandbox.products.directDebit.addInstruments(1).map((i) => i.id));
      } while (cursor !== null && pages < 50);

      expect(pages).toBe(11);
      expect(seen).toHaveLength(1058);
      expect(new Set(seen).size).toBe(1058);
      expect(seen).toEqual(expected);
      expect(seen.slice(-8)).toEqual(expected.slice(1050));
    });

    it('accepts limit up to settings.directDebit.maxLimit', async () => {
      sandbox.products.directDebit.addInstruments(1200);
      const max = await list(`?limit=${sandbox.runtime.settings.directDebit.maxLimit}`);
      expect(max.status).toBe(200);
      expect(max.body.instruments).toHaveLength(1000);
      expect(max.body.has_next).toBe(true);
    });

    it('answers 422 on [query, limit] for a limit that is not an integer, below 1 or above the maximum', async () => {
      const cases = [
        ['abc', 'int_parsing'],
        ['1.5', 'int_parsing'],
        ['0', 'greater_than_equal'],
        ['-3', 'greater_than_equal'],
        ['1001', 'less_than_equal'],
      ] as const;
      for (const [limit, type] of cases) {
        const response = await list(`?limit=${limit}`);
        expect(response.status, limit).toBe(422);
        expect(response.body.detail, limit).toEqual([{ loc: ['query', 'limit'], msg: expect.any(String), type }]);
      }
      expect((await list('?limit=1001')).body.detail[0].msg).toBe('Input should be less than or equal to 1000');
    });

    it('answers 422 on [query, cursor] for a cursor it did not issue', async () => {
      const forged = Buffer.from(JSON.stringify({ offset: 10 })).toString('base64url');
      for (const cursor of [
        'garbage!',
        'bm90LWpzb24',
        forged,
        Buffer.from(JSON.stringify({ v: 1, after: -1 })).toString('base64url'),
      ]) {
        const response = await list(`?cursor=${encodeURIComponent(cursor)}`);
        expect(response.status, cursor).toBe(422);
        expect(response.body.detail, cursor).toEqual([
          { loc: ['query', 'cursor'], msg: expect.stringContaining('next_cursor'), type: 'value_error' },
        ]);
      }
    });

    it('reports a bad limit and a bad cursor together', async () => {
      const response = await list('?limit=0&cursor=nope');
      expect(response.status).toBe(422);
      expect(response.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([
        ['query', 'limit'],
        ['query', 'cursor'],
      ]);
    });

    it("lists only the instruments of the key's organisation", async () => {
      const other = '88888888-8888-4888-8888-000000000001';
      const otherKey = 'dd_sandbox_key_other_00000000001';
      await controlClient(sandbox).addSeed({
        body: {
          directDebit: {
            orgId: other,
            apiKeys: [otherKey],
            customers: [
              {
                id: '88888888-8888-4888-8888-000000000101',
                name: 'Otra',
                document_type: 'mx_rfc',
                document_number: 'OTR010101AAA',
                email: null,
              },
            ],
            instruments: [
              {
                id: '88888888-8888-4888-8888-000000000201',
                customer_id: '88888888-8888-4888-8888-000000000101',
                type: 'mx_clabe',
                clabe: '002180000011112222',
              },
            ],
          },
        },
      });
      const theirs = await list('', otherKey);
      expect(theirs.body.instruments.map((i: { id: string; org_id: string }) => [i.id, i.org_id])).toEqual([
        ['88888888-8888-4888-8888-000000000201', other],
      ]);
      const ours = await list('', KEY);
      expect(ours.body.instruments).toHaveLength(2);
      const customer = await call(url('/customers'), { headers: { 'x-api-key': otherKey }, body: CUSTOMER });
      expect(customer.body.org_id).toBe(other);
    });

    it('forgets added instruments on reset and keeps the seeded ones', async () => {
      sandbox.products.directDebit.addInstruments(10);
      expect((await list()).body.instruments).toHaveLength(12);
      await controlClient(sandbox).reset({ body: {} });
      expect((await list()).body.instruments.map((i: { id: string }) => i.id)).toEqual(
        DEFAULT_SEED.directDebit!.instruments.map((i) => i.id),
      );
    });
  });

  describe('POST /instruments', () => {
    it('creates a CLABE instrument from the documented body (mx_clabe.identifier) and lists it', async () => {
      const body = {
        ...(documented('request.instruments.create.mx-clabe.json') as object),
        customer_id: '77777777-7777-4777-8777-000000000101',
      };
      const response = await call(url('/instruments'), { headers: withKey(), body });
      expect(response.status).toBe(201);
      expect(zCreateInstrumentResponse.safeParse(response.body).success).toBe(true);
      expect(response.body).toMatchObject({
        type: 'mx_clabe',
        customer_id: '77777777-7777-4777-8777-000000000101',
        mx_clabe: { identifier: '012180015118333755' },
        mx_direct_debit_card: null,
        currency: 'mxn',
        status: 'active',
      });
      expect((await list()).body.instruments.map((i: { id: string }) => i.id)).toContain(response.body.id);
    });

    it('creates a debit card instrument with the documented fields of the answer', async () => {
      const body = {
        ...(documented('request.instruments.create.card.json') as object),
        customer_id: '77777777-7777-4777-8777-000000000102',
      };
      const answer = documented('answer.instruments.create.card.json') as Record<string, unknown>;
      const response = await call(url('/instruments'), { headers: withKey(), body });
      expect(response.status).toBe(201);
      expect(Object.keys(response.body).sort()).toEqual(Object.keys(answer).sort());
      expect(response.body.mx_direct_debit_card).toEqual({ card_number: '012180015118333755', bank: 'mx_santander' });
    });

    it('answers 422 for the reference word clabe, an unknown bank and a customer of no one', async () => {
      const customer = '77777777-7777-4777-8777-000000000101';
      const bodies = [
        { type: 'mx_clabe', customer_id: customer, mx_clabe: { clabe: '012180015118333755' } },
        {
          type: 'mx_direct_debit_card',
          customer_id: customer,
          mx_direct_debit_card: { card_number: '4111111111111111', bank: 'mx_nowhere' },
        },
        {
          type: 'mx_clabe',
          customer_id: '99999999-9999-4999-8999-999999999999',
          mx_clabe: { identifier: '012180015118333755' },
        },
      ];
      for (const body of bodies) {
        const response = await call(url('/instruments'), { headers: withKey(), body });
        expect(response.status, JSON.stringify(body)).toBe(422);
        expect(JSON.stringify(response.body)).not.toContain('4111111111111111');
      }
    });
  });

  describe('POST /charges', () => {
    it('takes the documented inline charge and answers the documented charge: pending, amount a number, unrelated fields null', async () => {
      const request = documented('request.charges.create.inline.json');
      const answer = documented('answer.charges.create.inline.json') as Record<string, unknown>;
      const response = await call(url('/charges'), { headers: withKey(), body: request });
      expect(response.status).toBe(201);
      expect(zCreateChargeResponse.safeParse(response.body).success).toBe(true);
      // Every field of the documented answer, with the sandbox's own id, org and time.
      expect(Object.keys(response.body).sort()).toEqual(Object.keys(answer).sort());
      expect(response.body).toEqual({
        ...answer,
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        org_id: ORG,
        created_at: '2026-05-07T18:00:00.000Z',
      });
      expect(sandbox.products.directDebit.charges.get(response.body.id)?.status).toBe('pending');
    });

    it('takes a charge on a stored customer and its instrument, and refuses an instrument of another customer', async () => {
      const ok = await call(url('/charges'), {
        headers: withKey(),
        body: {
          currency: 'mxn',
          amount: 250.5,
          reference: 'sub-1',
          customer_id: '77777777-7777-4777-8777-000000000101',
          instrument_id: '77777777-7777-4777-8777-000000000201',
        },
      });
      expect(ok.status).toBe(201);
      expect(ok.body).toMatchObject({
        amount: 250.5,
        customer_id: '77777777-7777-4777-8777-000000000101',
        instrument_id: '77777777-7777-4777-8777-000000000201',
        inline_instrument: null,
        inline_customer: null,
      });
      const wrong = await call(url('/charges'), {
        headers: withKey(),
        body: {
          currency: 'mxn',
          amount: 1,
          reference: 'sub-2',
          customer_id: '77777777-7777-4777-8777-000000000101',
          instrument_id: '77777777-7777-4777-8777-000000000202',
        },
      });
      expect(wrong.status).toBe(422);
      expect(wrong.body.detail[0].loc).toEqual(['body', 'instrument_id']);
    });

    it('answers 422 for a body of neither form, an absent body, and an amount that is a string', async () => {
      for (const body of [
        { amount: 1 },
        {
          currency: 'mxn',
          amount: '100.00',
          reference: 'r',
          customer_id: '77777777-7777-4777-8777-000000000101',
          instrument_id: '77777777-7777-4777-8777-000000000201',
        },
      ]) {
        const response = await call(url('/charges'), { headers: withKey(), body });
        expect(response.status, JSON.stringify(body)).toBe(422);
      }
      expect((await call(url('/charges'), { method: 'POST', headers: withKey() })).status).toBe(422);
      expect(sandbox.products.directDebit.charges.size).toBe(0);
    });

    it('answers 422 for a body that is not an object, and for malformed JSON', async () => {
      for (const body of [[1, 2], 'charge', 42]) {
        const response = await call(url('/charges'), { headers: withKey(), body });
        expect(response.status, JSON.stringify(body)).toBe(422);
        expect(response.body.detail[0].loc, JSON.stringify(body)).toEqual(['body']);
      }
      const malformed = await call(url('/charges'), {
        method: 'POST',
        headers: withKey({ 'content-type': 'application/json' }),
        raw: '{',
      });
      expect(malformed.status).toBe(422);
      expect(malformed.body.detail).toEqual([{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }]);
    });
  });

  it('answers FastAPI-style 404 for an unknown path', async () => {
    const response = await call(url('/mandates'), { headers: withKey() });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ detail: 'Not Found' });
  });
});
