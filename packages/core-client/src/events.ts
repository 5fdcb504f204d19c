// Reading a core webhook delivery. MONEY_IN, STATUS_UPDATE, CEP and REFUND share an envelope
// (id_msg, msg_name, msg_date, body); REPORT is flat and is recognised by its shape. Bodies are
// read tolerantly: an extra field or an unexpected format is reported through onDrift (strict:
// DriftError) and the event is still returned, because a receiver must answer within 5 s and a
// 422 to an external MONEY_IN refunds the payer — never the result of our own strictness.
//
// An unknown msg_name is not an error: it comes back as `{ kind: 'unknown' }` so a receiver can
// store it and answer 2xx, and the spec can catch up.
import { readTolerantly, type DriftOptions } from '@paykit/runtime';
import type { ZodType } from 'zod';
import type { CepEvent, MoneyInEvent, RefundEvent, ReportEvent, StatusUpdateEvent } from './generated/types.gen.ts';
import { zCepEvent, zMoneyInEvent, zRefundEvent, zReportEvent, zStatusUpdateEvent } from './generated/zod.gen.ts';
import { CoreEventError } from './errors.ts';

export type CoreEvent =
  | { kind: 'MONEY_IN'; event: MoneyInEvent }
  | { kind: 'STATUS_UPDATE'; event: StatusUpdateEvent }
  | { kind: 'CEP'; event: CepEvent }
  | { kind: 'REFUND'; event: RefundEvent }
  | { kind: 'REPORT'; event: ReportEvent }
  /** An envelope whose msg_name this version does not know, or a body that is neither an envelope nor a REPORT. */
  | { kind: 'unknown'; msgName: string | undefined; event: Record<string, unknown> };

export type CoreEventKind = CoreEvent['kind'];

const ENVELOPED = {
  MONEY_IN: zMoneyInEvent,
  STATUS_UPDATE: zStatusUpdateEvent,
  CEP: zCepEvent,
  REFUND: zRefundEvent,
} as const satisfies Record<string, ZodType>;

function decode(body: unknown): unknown {
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) return body;
  const text =
    typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // No cause: JSON.parse's message quotes the body.
    throw new CoreEventError(
      `The core event body is not JSON (${text.length} characters): the platform sends a JSON object; check that the raw request body reached the parser unchanged.`,
    );
  }
}

/** REPORT has no envelope: no msg_name, and its own required fields. */
function isReport(value: Record<string, unknown>): boolean {
  return value.msg_name === undefined && value.body === undefined && ('file_type' in value || 'file_name' in value);
}

/**
 * Reads a core webhook delivery: the raw body (string or bytes) or its parsed JSON. Returns a
 * union discriminated by `kind` (the msg_name, or REPORT). Throws CoreEventError only when the
 * body is not a JSON object at all.
 */
export function parseCoreEvent(body: unknown, options?: DriftOptions): CoreEvent {
  const value = decode(body);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new CoreEventError(
      `A core event is a JSON object; this body is ${value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`}.`,
    );
  }
  const record = value as Record<string, unknown>;
  const name = record.msg_name;
  if (typeof name === 'string' && name in ENVELOPED) {
    const kind = name as keyof typeof ENVELOPED;
    const ctx = { product: 'core' as const, operation: `event ${kind}` };
    switch (kind) {
      case 'MONEY_IN':
        return { kind, event: readTolerantly(ENVELOPED.MONEY_IN, record, ctx, options) };
      case 'STATUS_UPDATE':
        return { kind, event: readTolerantly(ENVELOPED.STATUS_UPDATE, record, ctx, options) };
      case 'CEP':
        return { kind, event: readTolerantly(ENVELOPED.CEP, record, ctx, options) };
      case 'REFUND':
        return { kind, event: readTolerantly(ENVELOPED.REFUND, record, ctx, options) };
    }
  }
  if (isReport(record))
    return {
      kind: 'REPORT',
      event: readTolerantly(zReportEvent, record, { product: 'core', operation: 'event REPORT' }, options),
    };
  return { kind: 'unknown', msgName: typeof name === 'string' ? name : undefined, event: record };
}
