// The direct debit service: x-api-key, customers, instruments (created in the two documented forms,
// listed with cursor pagination), charges in the two documented forms (inline or stored objects).
import type { ChargeResultRequest, Delivery, Seed } from '@paykit/contracts';
import {
  zBank,
  zCreateChargeBody,
  zCreateCustomerBody,
  zCreateInstrumentBody,
  zInlineChargeCreateRequest,
  zStoredChargeCreateRequest,
} from '@paykit/direct-debit-client/zod';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { buildClabe } from '../../clabe.ts';
import { ControlError } from '../../control/errors.ts';
import type { SeededRandom } from '../../random.ts';
import type { SandboxProduct, SandboxRuntime } from '../../runtime.ts';
import { chargeResultEvent, type DirectDebitWebhook } from './charge-result.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import type { Ok, Schema } from './spec.ts';
import { installDirectDebitErrorHandling, parseOr422, ValidationFailure, type DetailItem } from './validation.ts';

type Bank = Schema<'Bank'>;

/** The spec's Customer with every field present (the sandbox answers nulls, never leaves one out). */
export type DirectDebitCustomer = Required<Schema<'Customer'>>;

/** The spec's DirectDebitInstrument with every field present (nulls where there is nothing). */
export type DirectDebitInstrument = Required<Schema<'DirectDebitInstrument'>>;

/** The documented charge, every field present (nulls where there is nothing). */
export type DirectDebitCharge = Required<
  Pick<
    Schema<'Charge'>,
    | 'id'
    | 'org_id'
    | 'status'
    | 'amount'
    | 'currency'
    | 'reference'
    | 'instrument_id'
    | 'customer_id'
    | 'inline_instrument'
    | 'inline_customer'
    | 'declined_reason'
    | 'declined_reason_rail'
    | 'created_at'
    | 'updated_at'
    | 'result_at'
    | 'chargeback_at'
  >
>;

interface StoredInstrument {
  /** Creation order; cursors point after one of these, so pages never shift. */
  seq: number;
  instrument: DirectDebitInstrument;
}

type SeedInstrument = NonNullable<Seed['directDebit']>['instruments'][number];

/** sandbox choice: seeded cards with no number get this test number. */
const DEFAULT_CARD_NUMBER = '4111111111111111';
/** sandbox choice: seeded cards with no (or an unknown) bank are at BBVA. */
const DEFAULT_CARD_BANK: Bank = 'mx_bbva';

/** Banks the generated CLABEs are drawn from: Santander, BBVA, Banorte, Banamex. */
const BANK_CODES = ['014', '012', '072', '002'];

/**
 * A CLABE for a generated instrument, with a correct control digit so a client that validates
 * CLABEs accepts it.
 */
function randomClabe(random: SeededRandom): string {
  return buildClabe(BANK_CODES[random.int(0, BANK_CODES.length - 1)]!, '180', random.digits(11));
}

/** The inline instrument as the documentation echoes it: `bank` null for a CLABE. */
const inlineInstrument = (i: Schema<'InlineInstrument'>): Schema<'InlineInstrument'> => ({
  type: i.type,
  identifier: i.identifier,
  bank: i.bank ?? null,
});
/** The inline customer as the documentation echoes it: email and phone_number null when not given. */
const inlineCustomer = (c: Schema<'InlineCustomer'>): Schema<'InlineCustomer'> => ({
  ...c,
  email: c.email ?? null,
  phone_number: c.phone_number ?? null,
});

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[value.length - 1] : value;
}

export class DirectDebitService implements SandboxProduct {
  readonly name = 'direct-debit';

  readonly runtime: SandboxRuntime;

  /** API key → the organisation it belongs to. */
  readonly apiKeys = new Map<string, string>();
  readonly customers = new Map<string, DirectDebitCustomer>();
  /** In creation order (ascending seq); `instrumentIndex` finds one by id. */
  readonly instruments: StoredInstrument[] = [];
  readonly instrumentIndex = new Map<string, StoredInstrument>();
  readonly charges = new Map<string, DirectDebitCharge>();
  /** Organisation → where its charge_result events go (the portal's Settings → Webhooks). */
  readonly webhooks = new Map<string, DirectDebitWebhook>();
  /** The organisation of the first seed loaded: where addInstruments() adds by default. */
  defaultOrgId: string | undefined;
  #nextSeq = 1;

  constructor(runtime: SandboxRuntime) {
    this.runtime = runtime;
  }

  register(app: FastifyInstance): void {
    installDirectDebitErrorHandling(app, this.runtime.settings.bodyLimitBytes);
    const auth = this.#authenticate.bind(this);

    app.post('/customers', { onRequest: auth }, async (request, reply) => {
      const body = parseOr422(zCreateCustomerBody, request.body);
      const now = this.#now();
      const customer: DirectDebitCustomer = {
        id: this.runtime.random.uuid(),
        org_id: this.#org(request),
        name: body.name,
        document_type: body.document_type,
        document_number: body.document_number,
        email: body.email ?? null,
        phone_number: body.phone_number ?? null,
        customer_metadata: null,
        created_at: now,
        updated_at: null,
      };
      this.customers.set(customer.id, customer);
      return reply.code(201).send(customer satisfies Ok<'createCustomer'>);
    });

    app.get('/instruments', { onRequest: auth }, async (request, reply) => {
      const query = (request.query ?? {}) as Record<string, string | string[] | undefined>;
      const { limit, after } = this.#pageQuery(query);
      return reply
        .code(200)
        .send(this.listInstruments(this.#org(request), limit, after) satisfies Ok<'listInstruments'>);
    });

    app.post('/instruments', { onRequest: auth }, async (request, reply) => {
      const body = parseOr422(zCreateInstrumentBody, request.body);
      const orgId = this.#org(request);
      this.#ownCustomer(orgId, body.customer_id, ['body', 'customer_id']);
      const common = { id: this.runtime.random.uuid(), orgId, customerId: body.customer_id, createdAt: this.#now() };
      const instrument =
        body.type === 'mx_clabe'
          ? this.#render({ ...common, clabe: body.mx_clabe.identifier })
          : this.#render({
              ...common,
              card: { card_number: body.mx_direct_debit_card.card_number, bank: body.mx_direct_debit_card.bank },
            });
      this.#store(instrument);
      // sandbox choice: the documentation shows the answer's body, not its status code.
      return reply.code(201).send(instrument satisfies Ok<'createInstrument'>);
    });

    app.post('/charges', { onRequest: auth }, async (request, reply) => {
      parseOr422(zCreateChargeBody, request.body);
      const orgId = this.#org(request);
      // The union took it: one of the two forms parses (stored objects first, as their ids are checked).
      const storedForm = zStoredChargeCreateRequest.safeParse(request.body);
      const body = storedForm.success ? storedForm.data : zInlineChargeCreateRequest.parse(request.body);
      const stored = storedForm.success;
      if (storedForm.success) {
        const body = storedForm.data;
        this.#ownCustomer(orgId, body.customer_id, ['body', 'customer_id']);
        const instrument = this.instrumentIndex.get(body.instrument_id)?.instrument;
        if (!instrument || instrument.org_id !== orgId || instrument.customer_id !== body.customer_id) {
          throw new ValidationFailure([
            {
              loc: ['body', 'instrument_id'],
              msg: 'Value error, no instrument with this id belongs to the customer: create it with POST /instruments first',
              type: 'value_error',
            },
          ]);
        }
      }
      const charge: DirectDebitCharge = {
        id: this.runtime.random.uuid(),
        org_id: orgId,
        status: 'pending',
        amount: body.amount,
        currency: body.currency,
        reference: body.reference,
        instrument_id: storedForm.success ? storedForm.data.instrument_id : null,
        customer_id: storedForm.success ? storedForm.data.customer_id : null,
        inline_instrument:
          'inline_instrument' in body && !stored
            ? inlineInstrument(body.inline_instrument as Schema<'InlineInstrument'>)
            : null,
        inline_customer:
          'inline_customer' in body && !stored
            ? inlineCustomer(body.inline_customer as Schema<'InlineCustomer'>)
            : null,
        declined_reason: null,
        declined_reason_rail: null,
        created_at: this.#now(),
        updated_at: null,
        result_at: null,
        chargeback_at: null,
      };
      this.charges.set(charge.id, charge);
      // sandbox choice: the reference and the documentation do not show the status code; 201.
      return reply.code(201).send(charge satisfies Ok<'createCharge'>);
    });
  }

  load(seed: Partial<Seed>): void {
    const dd = seed.directDebit;
    if (!dd) return;
    this.defaultOrgId ??= dd.orgId;
    for (const key of dd.apiKeys ?? []) this.apiKeys.set(key, dd.orgId);
    if (dd.webhook) this.webhooks.set(dd.orgId, dd.webhook);
    const now = this.#now();
    for (const c of dd.customers ?? []) {
      this.customers.set(c.id, {
        id: c.id,
        org_id: dd.orgId,
        name: c.name,
        document_type: c.document_type,
        document_number: c.document_number,
        email: c.email ?? null,
        phone_number: null,
        customer_metadata: null,
        created_at: now,
        updated_at: null,
      });
    }
    for (const i of dd.instruments ?? []) this.#store(this.#fromSeed(i, dd.orgId, now));
  }

  reset(): void {
    this.apiKeys.clear();
    this.customers.clear();
    this.instruments.length = 0;
    this.instrumentIndex.clear();
    this.charges.clear();
    this.webhooks.clear();
    this.defaultOrgId = undefined;
    this.#nextSeq = 1;
  }

  errorBody(status: number, message: string): unknown {
    return { detail: message, status };
  }

  /**
   * Adds `count` CLABE instruments (valid check digits) to an organisation — the seed's by
   * default — spread over its customers, for tests and demos of pagination.
   */
  addInstruments(count: number, orgId = this.defaultOrgId): DirectDebitInstrument[] {
    if (!orgId) throw new Error('No direct debit organisation is seeded: add a seed with directDebit first.');
    let owners = [...this.customers.values()].filter((c) => c.org_id === orgId).map((c) => c.id);
    if (owners.length === 0) {
      const now = this.#now();
      const customer: DirectDebitCustomer = {
        id: this.runtime.random.uuid(),
        org_id: orgId,
        name: 'Sandbox bulk customer',
        document_type: 'mx_rfc',
        document_number: 'SBC010101AAA',
        email: null,
        phone_number: null,
        customer_metadata: null,
        created_at: now,
        updated_at: null,
      };
      this.customers.set(customer.id, customer);
      owners = [customer.id];
    }
    const added: DirectDebitInstrument[] = [];
    const now = this.#now();
    for (let n = 0; n < count; n++) {
      const instrument = this.#render({
        id: this.runtime.random.uuid(),
        orgId,
        customerId: owners[n % owners.length]!,
        clabe: randomClabe(this.runtime.random),
        createdAt: now,
      });
      this.#store(instrument);
      added.push(instrument);
    }
    return added;
  }

  /**
   * A pending charge reaches its final outcome (control API): the charge records it, and its
   * charge_result event goes to the organisation's webhook with the configured Authorization value.
   */
  settleCharge(
    chargeId: string,
    outcome: ChargeResultRequest,
  ): { chargeId: string; status: string; deliveryIds: string[] } {
    const charge = this.charges.get(chargeId);
    if (!charge)
      throw new ControlError(
        404,
        `No direct debit charge ${chargeId}.`,
        'Create it with POST /direct-debit/charges first.',
      );
    if (charge.status !== 'pending')
      throw new ControlError(
        409,
        `Charge ${chargeId} already has its outcome (${charge.status}).`,
        'A charge reaches one final outcome; create another charge.',
      );
    if (outcome.declinedReason !== undefined && outcome.result !== 'declined')
      throw new ControlError(409, 'declinedReason is for a declined charge only.');
    const now = this.#now();
    charge.status = outcome.result;
    charge.result_at = now;
    charge.updated_at = now;
    // sandbox choice: a decline without a reason is for insufficient funds (the documentation's example).
    charge.declined_reason = outcome.result === 'declined' ? (outcome.declinedReason ?? 'insufficient_funds') : null;
    const webhook = this.webhooks.get(charge.org_id);
    if (!webhook) return { chargeId, status: charge.status, deliveryIds: [] };
    const deliveries: Delivery[] = this.runtime.deliveries.enqueue({
      clientId: charge.org_id,
      product: 'direct-debit',
      eventType: 'charge_result',
      eventId: `${chargeId}:${outcome.result}`,
      url: webhook.url,
      body: chargeResultEvent(charge, outcome, webhook.form, now),
      auth: { kind: 'authorization', value: webhook.authorization },
    });
    return { chargeId, status: charge.status, deliveryIds: deliveries.map((d) => d.id) };
  }

  /** One page of an organisation's instruments, after the instrument with sequence `after`. */
  listInstruments(orgId: string, limit: number, after: number): Schema<'InstrumentPage'> {
    const start = this.#firstAfter(after);
    const page: StoredInstrument[] = [];
    let hasNext = false;
    for (let i = start; i < this.instruments.length; i++) {
      const stored = this.instruments[i]!;
      if (stored.instrument.org_id !== orgId) continue;
      if (page.length === limit) {
        hasNext = true;
        break;
      }
      page.push(stored);
    }
    let hasPrevious = false;
    for (let i = start - 1; i >= 0 && !hasPrevious; i--) hasPrevious = this.instruments[i]!.instrument.org_id === orgId;
    return {
      instruments: page.map((s) => s.instrument),
      limit,
      has_next: hasNext,
      has_previous: hasPrevious,
      // sandbox choice: null on the last page (nothing to continue from yet).
      next_cursor: hasNext ? encodeCursor(page[page.length - 1]!.seq) : null,
    };
  }

  // ---- internals ----

  #now(): string {
    return this.runtime.clock.now().toISOString();
  }

  /** A customer of this organisation, or a 422 on `loc` that says to create it first. */
  #ownCustomer(orgId: string, customerId: string, loc: (string | number)[]): DirectDebitCustomer {
    const customer = this.customers.get(customerId);
    if (!customer || customer.org_id !== orgId) {
      throw new ValidationFailure([
        {
          loc,
          msg: 'Value error, no customer with this id in this organisation: create it with POST /customers first',
          type: 'value_error',
        },
      ]);
    }
    return customer;
  }

  #org(request: FastifyRequest): string {
    return this.apiKeys.get(header(request, 'x-api-key') ?? '')!;
  }

  /** Every request needs a known x-api-key (Node lower-cases header names: any spelling works). */
  async #authenticate(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const key = header(request, 'x-api-key');
    if (key !== undefined && this.apiKeys.has(key)) return undefined;
    // sandbox choice: the reference shows only the status 401; the body says what to do. Never echo the key.
    const detail =
      key === undefined || key === ''
        ? 'Missing API key: send your direct debit API key in the X-API-Key header.'
        : 'Invalid API key: the X-API-Key header does not match an active direct debit key of this environment (sandbox keys: GET /_sandbox/seed).';
    return reply.code(401).send({ detail });
  }

  /** limit: integer 1..settings.directDebit.maxLimit, default 100; cursor: one of ours, or absent. */
  #pageQuery(query: Record<string, string | string[] | undefined>): { limit: number; after: number } {
    // A repeated query parameter: FastAPI takes the last value.
    const last = (v: string | string[] | undefined) => (Array.isArray(v) ? v[v.length - 1] : v);
    const detail: DetailItem[] = [];
    const max = this.runtime.settings.directDebit.maxLimit;
    let limit = 100;
    const rawLimit = last(query.limit);
    if (rawLimit !== undefined) {
      const trimmed = rawLimit.trim();
      if (!/^[+-]?\d+$/.test(trimmed)) {
        detail.push({
          loc: ['query', 'limit'],
          msg: 'Input should be a valid integer, unable to parse string as an integer',
          type: 'int_parsing',
        });
      } else {
        limit = Number(trimmed);
        // sandbox choice: the reference does not show the maximum; settings.directDebit.maxLimit.
        if (limit < 1)
          detail.push({
            loc: ['query', 'limit'],
            msg: 'Input should be greater than or equal to 1',
            type: 'greater_than_equal',
          });
        else if (limit > max)
          detail.push({
            loc: ['query', 'limit'],
            msg: `Input should be less than or equal to ${max}`,
            type: 'less_than_equal',
          });
      }
    }
    let after = 0;
    const rawCursor = last(query.cursor);
    // sandbox choice: an empty cursor, or the text "null" (a null sent as a query string), is the first page.
    if (rawCursor !== undefined && rawCursor !== '' && rawCursor !== 'null') {
      const decoded = decodeCursor(rawCursor);
      if (decoded === undefined) {
        detail.push({
          loc: ['query', 'cursor'],
          msg: 'Value error, not a cursor of this service: send the next_cursor of the previous page, or omit cursor for the first page',
          type: 'value_error',
        });
      } else {
        after = decoded;
      }
    }
    if (detail.length > 0) throw new ValidationFailure(detail);
    return { limit, after };
  }

  /** Index of the first stored instrument whose seq is above `after` (binary search). */
  #firstAfter(after: number): number {
    let lo = 0;
    let hi = this.instruments.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.instruments[mid]!.seq <= after) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Adds an instrument at the end, or replaces one with the same id in its place. */
  #store(instrument: DirectDebitInstrument): void {
    const existing = this.instrumentIndex.get(instrument.id);
    if (existing) {
      existing.instrument = instrument;
      return;
    }
    const stored = { seq: this.#nextSeq++, instrument };
    this.instruments.push(stored);
    this.instrumentIndex.set(instrument.id, stored);
  }

  #fromSeed(i: SeedInstrument, orgId: string, createdAt: string): DirectDebitInstrument {
    if (i.type === 'mx_clabe') {
      // sandbox choice: a seeded CLABE instrument without a CLABE gets a generated, valid one.
      return this.#render({
        id: i.id,
        orgId,
        customerId: i.customer_id,
        clabe: i.clabe ?? randomClabe(this.runtime.random),
        createdAt,
      });
    }
    const bank = zBank.safeParse(i.bank);
    return this.#render({
      id: i.id,
      orgId,
      customerId: i.customer_id,
      card: { card_number: i.card_number ?? DEFAULT_CARD_NUMBER, bank: bank.success ? bank.data : DEFAULT_CARD_BANK },
      createdAt,
    });
  }

  #render(input: {
    id: string;
    orgId: string;
    customerId: string;
    clabe?: string;
    card?: { card_number: string; bank: Bank };
    createdAt: string;
  }): DirectDebitInstrument {
    return {
      id: input.id,
      org_id: input.orgId,
      customer_id: input.customerId,
      type: input.card ? 'mx_direct_debit_card' : 'mx_clabe',
      description: null,
      // sandbox choice: instruments are active from the start (status transitions are not shown).
      status: 'active',
      // The documented word for the CLABE is `identifier` (the reference's instrument says `clabe`).
      mx_clabe: input.card ? null : { identifier: input.clabe!, can_credit: true, can_debit: true },
      mx_direct_debit_card: input.card ?? null,
      // As the documentation's answers write it.
      currency: 'mxn',
      ownership_verification_result: null,
      ownership_verification_result_at: null,
      created_at: input.createdAt,
      updated_at: null,
    };
  }
}
