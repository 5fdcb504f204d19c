// The webhook gateway's routes: where the platform delivers events (one URL per core event type,
// one for cash), the probes, and the admin API that ops tools use to read and replay stored
// events. Served by apps/webhook-gateway; the CLI calls the admin routes typed through
// @ts-rest/core's initClient.
//
// Inbound bodies are typed `unknown` on purpose: the gateway reads the raw bytes itself (the cash
// signature covers them exactly) and validates them tolerantly, so nothing here may reject a
// delivery for its shape.
import { initContract } from '@ts-rest/core';
import * as z from 'zod';

const c = initContract();

/** Every error answer: a short machine-readable code and what was wrong / what to do. */
export const GatewayProblem = z.object({ error: z.string(), message: z.string() });
export type GatewayProblem = z.infer<typeof GatewayProblem>;

/** A core delivery that was stored (or had been stored before: `duplicate`). */
export const Received = z.object({ received: z.literal(true), duplicate: z.boolean(), seq: z.string() });
export type Received = z.infer<typeof Received>;

/** MONEY_IN refused by policy: the platform refunds an external SPEI credit to its payer. */
export const MoneyInRejected = z.object({ refundReason: z.string(), message: z.string() });
export type MoneyInRejected = z.infer<typeof MoneyInRejected>;

/** The answer the cash service reads (the activation request requires `status` and `message`). */
export const CashAnswer = z.object({ status: z.string(), message: z.string() });
export type CashAnswer = z.infer<typeof CashAnswer>;

/** The core event types, each delivered to its own URL (registered per type). */
export const CORE_EVENT_PATHS = {
  MONEY_IN: '/webhooks/core/money-in',
  STATUS_UPDATE: '/webhooks/core/status-update',
  CEP: '/webhooks/core/cep',
  REFUND: '/webhooks/core/refund',
  REPORT: '/webhooks/core/report',
} as const;
export type CoreEventType = keyof typeof CORE_EVENT_PATHS;
export const CORE_EVENT_TYPES = Object.keys(CORE_EVENT_PATHS) as CoreEventType[];
export const CASH_WEBHOOK_PATH = '/webhooks/cash';
/** Direct debit deliveries (charge_result), authenticated by the Authorization value the operator set in the portal. */
export const DIRECT_DEBIT_WEBHOOK_PATH = '/webhooks/direct-debit';
/** The sources of stored events. */
export const EventSourceName = z.enum(['core', 'cash', 'direct_debit']);

/** What every inbound route may answer besides success. */
const inboundErrors = {
  400: GatewayProblem,
  401: GatewayProblem,
  413: GatewayProblem,
  415: GatewayProblem,
  422: GatewayProblem,
  503: GatewayProblem,
} as const;

const coreRoute = <P extends string>(path: P, summary: string) =>
  ({
    method: 'POST',
    path,
    summary,
    contentType: 'application/json',
    body: z.unknown(),
    responses: { 200: Received, 201: Received, 202: Received, ...inboundErrors },
  }) as const;

export const Outcome = z.enum(['accepted', 'rejected', 'flagged', 'stored']);
export const DriftNote = z.object({ path: z.string(), kind: z.string(), expected: z.string(), seen: z.string() });

export const StoredEventView = z.object({
  seq: z.string(),
  source: EventSourceName,
  eventType: z.string(),
  dedupeKey: z.string(),
  idMsg: z.string().nullable(),
  transactionId: z.string().nullable(),
  operationId: z.string().nullable(),
  receivedAt: z.iso.datetime({ offset: true }),
  payload: z.unknown(),
  headers: z.record(z.string(), z.string()),
  drift: z.array(DriftNote),
  outcome: Outcome,
  reason: z.string().nullable(),
  answerStatus: z.number().int(),
  refundReason: z.string().nullable(),
  deliveries: z.number().int(),
});
export type StoredEventView = z.infer<typeof StoredEventView>;

export const ReplayView = z.object({
  seq: z.string(),
  replayedAt: z.iso.datetime({ offset: true }),
  drift: z.array(DriftNote),
  outcome: Outcome,
  reason: z.string().nullable(),
  answerStatus: z.number().int(),
  refundReason: z.string().nullable(),
  /** Whether the replay reached the decision stored at receipt. */
  sameAsStored: z.boolean(),
});
export type ReplayView = z.infer<typeof ReplayView>;

const adminHeaders = z.object({ authorization: z.string() });
const adminErrors = { 401: GatewayProblem, 403: GatewayProblem, 503: GatewayProblem } as const;

/** Where the platform delivers: one URL per core event type, one for cash, one for direct debit. */
export const gatewayWebhooks = c.router({
  coreMoneyIn: {
    ...coreRoute(
      CORE_EVENT_PATHS.MONEY_IN,
      'MONEY_IN: stored, then 201 (SPEI_CREDIT accepted), 200 (INT_CREDIT) or 422 with refundReason',
    ),
    responses: {
      200: Received,
      201: Received,
      202: Received,
      ...inboundErrors,
      422: z.union([MoneyInRejected, GatewayProblem]),
    },
  },
  coreStatusUpdate: coreRoute(CORE_EVENT_PATHS.STATUS_UPDATE, 'STATUS_UPDATE: 200 once stored'),
  coreCep: coreRoute(CORE_EVENT_PATHS.CEP, 'CEP: 200 once stored'),
  coreRefund: coreRoute(CORE_EVENT_PATHS.REFUND, 'REFUND: 200 once stored'),
  coreReport: coreRoute(CORE_EVENT_PATHS.REPORT, 'REPORT (flat, no envelope): 200 once stored'),
  cash: {
    method: 'POST',
    path: CASH_WEBHOOK_PATH,
    summary:
      'Cash deliveries: the activation request and the paid, expired and reversed events, signed over the raw bytes',
    contentType: 'application/json',
    body: z.unknown(),
    responses: { 200: CashAnswer, ...inboundErrors },
  },
  directDebit: {
    method: 'POST',
    path: DIRECT_DEBIT_WEBHOOK_PATH,
    summary: 'Direct debit deliveries {event, timestamp, data} (charge_result): 200 once stored',
    contentType: 'application/json',
    body: z.unknown(),
    responses: { 200: Received, ...inboundErrors },
  },
});

/** Probes, metrics and the admin API (read and replay stored events; bearer GATEWAY_ADMIN_TOKEN). */
export const gatewayOps = c.router({
  healthz: {
    method: 'GET',
    path: '/healthz',
    summary: 'The process is up',
    responses: { 200: z.object({ status: z.literal('ok') }) },
  },
  readyz: {
    method: 'GET',
    path: '/readyz',
    summary: 'The store answers: 200, or 503 while it cannot commit',
    responses: { 200: z.object({ status: z.literal('ready'), store: z.string() }), 503: GatewayProblem },
  },
  metrics: {
    method: 'GET',
    path: '/metrics',
    summary: 'Prometheus text format',
    responses: { 200: c.otherResponse({ contentType: 'text/plain', body: z.string() }) },
  },

  listEvents: {
    method: 'GET',
    path: '/admin/events',
    summary: 'Stored events, newest first (admin token)',
    headers: adminHeaders,
    query: z.object({
      source: EventSourceName.optional(),
      eventType: z.string().optional(),
      outcome: Outcome.optional(),
      before: z.string().regex(/^\d+$/).optional(),
      limit: z.coerce.number().int().min(1).max(1000).optional(),
    }),
    responses: { 200: z.object({ events: z.array(StoredEventView) }), 400: GatewayProblem, ...adminErrors },
  },
  getEvent: {
    method: 'GET',
    path: '/admin/events/:seq',
    summary: 'One stored event with its replays and its raw bytes (admin token)',
    headers: adminHeaders,
    pathParams: z.object({ seq: z.string().regex(/^\d+$/, 'a stored event number') }),
    responses: {
      200: z.object({
        event: StoredEventView,
        replays: z.array(ReplayView.omit({ sameAsStored: true })),
        /** The exact bytes received, base64: what `paykit events replay --to` sends again. */
        rawBody: z.base64().optional(),
      }),
      404: GatewayProblem,
      400: GatewayProblem,
      ...adminErrors,
    },
  },
  replayEvent: {
    method: 'POST',
    path: '/admin/events/:seq/replay',
    summary:
      'Re-run validation and the decision for a stored event with today’s rules; the result is kept beside the event (admin token)',
    headers: adminHeaders,
    pathParams: z.object({ seq: z.string().regex(/^\d+$/, 'a stored event number') }),
    body: z.object({}).optional(),
    responses: { 200: ReplayView, 404: GatewayProblem, 400: GatewayProblem, ...adminErrors },
  },
});
