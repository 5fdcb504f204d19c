// The sandbox's control API: what tests, the CLI and `pnpm start` use to seed the sandbox,
// trigger platform-side events, move its clock, inject faults and read what happened.
// Served by apps/sandbox under /_sandbox; called typed through @ts-rest/core's initClient.
import { initContract } from '@ts-rest/core';
import * as z from 'zod';

const c = initContract();

const Problem = z.object({ error: z.string(), hint: z.string().optional() });
const Uuid = z.uuid();
const Amount = z.string().regex(/^\d+\.\d{2}$/, 'a decimal string with two decimals, e.g. "150.00"');

export const ClockState = z.object({
  now: z.iso.datetime({ offset: true }),
  mode: z.enum(['real', 'manual']),
  pendingTasks: z.number().int(),
});

/** Faults injected into the platform API and into webhook deliveries. */
export const Faults = z.object({
  api: z
    .object({
      /** Extra latency added to every matching API request, in ms. */
      latencyMs: z.number().int().min(0).max(60_000).default(0),
      /** Share of matching API requests answered 500 (0 to 1). */
      errorRate: z.number().min(0).max(1).default(0),
      /** Products the API faults apply to; all when omitted. */
      products: z
        .array(z.enum(['core', 'direct-debit', 'cash', 'remittance', 'billpay', 'gift-cards', 'lottery']))
        .optional(),
    })
    .default({ latencyMs: 0, errorRate: 0 }),
  deliveries: z
    .object({
      /** Each delivery is sent between min and max times (duplicates). */
      duplicates: z
        .object({ min: z.number().int().min(1).max(5), max: z.number().int().min(1).max(5) })
        .default({ min: 1, max: 1 }),
      /** Shuffle the order in which queued deliveries are sent. */
      reorder: z.boolean().default(false),
      /** Extra delay before each delivery attempt, in ms (real time). */
      delayMs: z.number().int().min(0).max(60_000).default(0),
      /** Deliveries in flight at once per client (1: one after the other, in queue order). */
      concurrency: z.number().int().min(1).max(64).default(1),
    })
    .default({ duplicates: { min: 1, max: 1 }, reorder: false, delayMs: 0, concurrency: 1 }),
});
export type Faults = z.infer<typeof Faults>;

export const DeliveryAttempt = z.object({
  at: z.iso.datetime({ offset: true }),
  status: z.number().int().nullable(),
  error: z.string().nullable(),
  durationMs: z.number(),
});

export const Delivery = z.object({
  id: z.string(),
  clientId: z.string(),
  product: z.enum(['core', 'cash', 'direct-debit']),
  eventType: z.string(),
  eventId: z.string(),
  url: z.string(),
  state: z.enum(['pending', 'retrying', 'delivered', 'rejected', 'failed']),
  attempts: z.array(DeliveryAttempt),
  nextAttemptAt: z.iso.datetime({ offset: true }).nullable(),
  body: z.unknown(),
});
export type Delivery = z.infer<typeof Delivery>;

/** The outcome of a direct debit charge (the charge_result webhook's data). */
export const ChargeResultRequest = z.object({
  result: z.enum(['confirmed', 'declined', 'canceled']),
  /** Why it was declined (the documentation shows insufficient_funds); declined only. */
  declinedReason: z.string().min(1).optional(),
  /** Penny validation's result as the event carries it (the documentation shows matched and NO_MATCH). */
  ownershipVerificationResult: z.string().min(1).optional(),
});
export type ChargeResultRequest = z.infer<typeof ChargeResultRequest>;

export const Counters = z.object({
  tokenCreations: z.number().int(),
  requests: z.record(z.string(), z.number().int()),
  deliveries: z.object({ sent: z.number().int(), byStatus: z.record(z.string(), z.number().int()) }),
});

export const IncomingSpei = z.object({
  /** The receiving instrument (a CLABE of the seed, or one added through POST /seed). */
  beneficiaryClabe: z.string().regex(/^\d{18}$/),
  amount: Amount,
  payerAccount: z.string().default('002180001234567896'),
  payerName: z.string().default('PAGADOR EXTERNO SA DE CV'),
  payerRfc: z.string().default('PEX010101AB1'),
  payerInstitution: z.string().default('40002'),
  paymentConcept: z.string().default('Pago'),
  numericReference: z
    .string()
    .regex(/^\d{1,7}$/)
    .default('1234567'),
});

export const CepOutcome = z.object({
  status: z.enum(['DELAYED', 'COMPLETED', 'FAILED']),
  beneficiaryName: z.string().optional(),
  beneficiaryRfc: z.string().nullable().optional(),
});

export const SpeiRejection = z.object({
  status: z.enum(['REJECTED', 'CANCELLED', 'DECLINED']).default('REJECTED'),
  reason: z.string().default('ACCOUNT_NOT_FOUND'),
  reasonDescription: z.string().default('The beneficiary account does not exist.'),
});

export const ReportRequest = z.object({
  clientId: Uuid,
  fileType: z.enum(['TRANSACTIONS', 'ACCOUNT_STATEMENT']).default('TRANSACTIONS'),
  period: z.enum(['DAILY', 'MONTHLY']).default('DAILY'),
  accountId: z.string().optional(),
});

export const CashOperationRequest = z.object({
  apiKey: z.string().length(32).optional(),
  type: z.enum(['cash_in', 'cash_out']),
  amount: z.number().int().positive(),
  externalUserId: z.string().min(1),
  /** Open-reference operations send no webhook events (reference: "Sent only for closed-reference operations"). */
  closedReference: z.boolean().default(true),
});

export const CashOperation = z.object({
  operation_id: z.number().int(),
  external_user_id: z.string(),
  type: z.enum(['cash_in', 'cash_out']),
  amount: z.number().int(),
  reference: z.string().regex(/^\d{20}$/),
  status: z.enum(['pending', 'paid', 'expired', 'reversed']),
  closed_reference: z.boolean(),
});

/** A seed: what the sandbox holds at start. Every section is optional when merged through POST /seed. */
export const Seed = z.object({
  core: z
    .object({
      clients: z
        .array(
          z.object({
            clientId: Uuid,
            name: z.string(),
            apiKeys: z.object({ staging: z.string().min(16), production: z.string().min(16) }),
            credentials: z.array(
              z.object({
                id: Uuid,
                environment: z.enum(['staging', 'production']),
                clientSecret: z.string().min(16),
                status: z.enum(['ACTIVE', 'INACTIVE']).default('ACTIVE'),
              }),
            ),
          }),
        )
        .default([]),
      accounts: z
        .array(
          z.object({
            id: z.string(),
            clientId: Uuid,
            ownerId: Uuid,
            /** A platform account: transfers to its instruments are booked internally (INT_DEBIT). */
            platform: z.boolean(),
            status: z.enum(['ACTIVE', 'BLOCKED', 'CANCELLED']).default('ACTIVE'),
            /** Balance in centavos, as a decimal string of an integer ("100000000" = 1,000,000.00 MXN). */
            balanceCentavos: z.string().regex(/^\d+$/).default('100000000'),
          }),
        )
        .default([]),
      instruments: z
        .array(
          z.object({
            id: Uuid,
            clientId: Uuid,
            ownerId: Uuid,
            /** The account this instrument belongs to, when it is one of ours (platform or private). */
            accountId: z.string().optional(),
            bankId: Uuid,
            alias: z.string(),
            type: z.enum(['RECEIVER', 'SENDER_RECEIVER']),
            status: z.enum(['ACTIVE', 'BLOCKED', 'DELETED']).default('ACTIVE'),
            clabe: z.string().regex(/^\d{18}$/),
            holderName: z.string(),
            rfc: z.string(),
          }),
        )
        .default([]),
    })
    .default({ clients: [], accounts: [], instruments: [] }),
  directDebit: z
    .object({
      orgId: Uuid,
      apiKeys: z.array(z.string().min(16)),
      customers: z
        .array(
          z.object({
            id: Uuid,
            name: z.string(),
            document_type: z.string(),
            document_number: z.string(),
            email: z.email().nullable().default(null),
          }),
        )
        .default([]),
      instruments: z
        .array(
          z.object({
            id: Uuid,
            customer_id: Uuid,
            type: z.enum(['mx_clabe', 'mx_direct_debit_card']),
            clabe: z
              .string()
              .regex(/^\d{18}$/)
              .optional(),
            card_number: z.string().optional(),
            bank: z.string().optional(),
          }),
        )
        .default([]),
      /**
       * Where charge_result events go, as configured in the platform's portal: the URL and the
       * Authorization header value sent with every delivery. `form: 'older'` sends the older
       * documented data ({charge_id, charge_result, charge_reference} only).
       */
      webhook: z
        .object({
          url: z.url(),
          authorization: z.string().min(1),
          form: z.enum(['current', 'older']).default('current'),
        })
        .optional(),
    })
    .optional(),
  cash: z
    .object({ apiKey: z.string().length(32), apiSecret: z.string().min(16) })
    .array()
    .default([]),
  bearer: z
    .object({
      billpay: z.array(z.string().min(16)).default([]),
      'gift-cards': z.array(z.string().min(16)).default([]),
      lottery: z
        .array(
          z.object({
            token: z.string().min(16),
            payeeId: z.string(),
            expiresAt: z.iso.datetime({ offset: true }).optional(),
          }),
        )
        .default([]),
    })
    .default({ billpay: [], 'gift-cards': [], lottery: [] }),
});
export type Seed = z.infer<typeof Seed>;
export type SeedInput = z.input<typeof Seed>;

export const sandboxControl = c.router(
  {
    getSeed: {
      method: 'GET',
      path: '/seed',
      summary: 'The seed the sandbox holds (its clients, keys and tokens)',
      responses: { 200: Seed },
    },
    addSeed: {
      method: 'POST',
      path: '/seed',
      summary: 'Add clients, accounts, instruments, customers or keys',
      body: Seed.partial(),
      responses: { 200: Seed, 400: Problem },
    },
    reset: {
      method: 'POST',
      path: '/reset',
      summary: 'Forget all state and load the seed again',
      body: z.object({}).optional(),
      responses: { 200: z.object({ ok: z.literal(true) }) },
    },

    getClock: { method: 'GET', path: '/clock', responses: { 200: ClockState } },
    advanceClock: {
      method: 'POST',
      path: '/clock/advance',
      summary: 'Move the sandbox clock forward, running every lifecycle step that falls due',
      body: z.object({
        seconds: z
          .number()
          .positive()
          .max(400 * 86_400),
      }),
      responses: { 200: ClockState },
    },
    setClock: {
      method: 'POST',
      path: '/clock/set',
      summary: 'Move the sandbox clock to a later instant',
      body: z.object({ at: z.iso.datetime({ offset: true }) }),
      responses: { 200: ClockState, 400: Problem },
    },

    getFaults: { method: 'GET', path: '/faults', responses: { 200: Faults } },
    setFaults: { method: 'PUT', path: '/faults', body: Faults, responses: { 200: Faults } },

    getCounters: { method: 'GET', path: '/counters', responses: { 200: Counters } },
    listDeliveries: {
      method: 'GET',
      path: '/deliveries',
      query: z.object({
        clientId: z.string().optional(),
        eventType: z.string().optional(),
        state: Delivery.shape.state.optional(),
      }),
      responses: { 200: z.object({ deliveries: z.array(Delivery) }) },
    },

    triggerIncomingSpei: {
      method: 'POST',
      path: '/core/incoming-spei',
      summary: 'An external SPEI credit arrives for a CLABE: MONEY_IN SPEI_CREDIT is delivered',
      body: IncomingSpei,
      responses: { 200: z.object({ transactionId: Uuid, trackingKey: z.string() }), 404: Problem, 409: Problem },
    },
    triggerCepOutcome: {
      method: 'POST',
      path: '/core/transactions/:transactionId/cep',
      summary: 'Move a penny validation’s CEP lookup to DELAYED, COMPLETED or FAILED now',
      pathParams: z.object({ transactionId: Uuid }),
      body: CepOutcome,
      responses: { 200: z.object({ status: z.string() }), 404: Problem, 409: Problem },
    },
    triggerSpeiSettle: {
      method: 'POST',
      path: '/core/transactions/:transactionId/settle',
      summary: 'Liquidate an outbound SPEI transfer (STATUS_UPDATE LIQUIDATED)',
      pathParams: z.object({ transactionId: Uuid }),
      body: z.object({}).optional(),
      responses: { 200: z.object({ status: z.string() }), 404: Problem, 409: Problem },
    },
    triggerSpeiReject: {
      method: 'POST',
      path: '/core/transactions/:transactionId/reject',
      summary: 'Reject, cancel or decline an outbound SPEI transfer with a reason',
      pathParams: z.object({ transactionId: Uuid }),
      body: SpeiRejection,
      responses: { 200: z.object({ status: z.string() }), 404: Problem, 409: Problem },
    },
    triggerSpeiReverse: {
      method: 'POST',
      path: '/core/transactions/:transactionId/reverse',
      summary: 'The banking network reverses a liquidated outbound transfer: a refund transaction and a REFUND event',
      pathParams: z.object({ transactionId: Uuid }),
      body: z.object({}).optional(),
      responses: { 200: z.object({ refundTransactionId: Uuid }), 404: Problem, 409: Problem },
    },
    triggerReport: {
      method: 'POST',
      path: '/core/reports',
      summary: 'Emit a REPORT event',
      body: ReportRequest,
      responses: { 200: z.object({ fileName: z.string() }), 404: Problem, 409: Problem },
    },
    getReportFile: {
      method: 'GET',
      path: '/core/reports/:fileName',
      summary:
        'The CSV file a REPORT event announced (the format `paykit reports import` reads), with the period’s transactions as the sandbox holds them now',
      pathParams: z.object({ fileName: z.string().min(1) }),
      /** Only needed when two clients were sent a report of the same name. */
      query: z.object({ clientId: Uuid.optional() }),
      responses: {
        200: c.otherResponse({ contentType: 'text/csv; charset=utf-8', body: z.string() }),
        404: Problem,
        409: Problem,
      },
    },

    triggerChargeResult: {
      method: 'POST',
      path: '/direct-debit/charges/:chargeId/result',
      summary:
        'A pending direct debit charge reaches its final outcome: its charge_result event is delivered to the direct debit webhook',
      pathParams: z.object({ chargeId: Uuid }),
      body: ChargeResultRequest,
      responses: {
        200: z.object({ chargeId: Uuid, status: z.string(), deliveryIds: z.array(z.string()) }),
        404: Problem,
        409: Problem,
      },
    },

    createCashOperation: {
      method: 'POST',
      path: '/cash/operations',
      summary: 'Create a pending cash operation with a 20-digit reference',
      body: CashOperationRequest,
      responses: { 200: CashOperation, 404: Problem, 409: Problem },
    },
    setCashOperationStatus: {
      method: 'POST',
      path: '/cash/operations/:operationId/status',
      summary: 'Mark a cash operation paid, expired or reversed; closed-reference operations deliver a signed event',
      pathParams: z.object({ operationId: z.coerce.number().int() }),
      body: z.object({ status: z.enum(['paid', 'expired', 'reversed']) }),
      responses: { 200: CashOperation, 404: Problem, 409: Problem },
    },
  },
  { pathPrefix: '/_sandbox', strictStatusCodes: true },
);

export type SandboxControl = typeof sandboxControl;

export type IncomingSpei = z.infer<typeof IncomingSpei>;
export type CepOutcome = z.infer<typeof CepOutcome>;
export type SpeiRejection = z.infer<typeof SpeiRejection>;
export type ReportRequest = z.infer<typeof ReportRequest>;
export type CashOperationRequest = z.infer<typeof CashOperationRequest>;
export type CashOperation = z.infer<typeof CashOperation>;
