// From an evaluated delivery to its answer: commit it to the store (group-committed with every
// other delivery in flight) and answer with the decision stored for it. A repeat gets the first
// delivery's answer again. Nothing is answered 2xx before its commit; a store that cannot commit
// before the deadline gets 503, and the platform redelivers.
import type { EventStore, NewEvent } from '@paykit/store';
import type { Evaluation } from './evaluate.ts';
import type { GatewayMetrics } from './metrics.ts';

export interface IntakeResult {
  seq: string;
  duplicate: boolean;
  answerStatus: number;
  refundReason: string | null;
}

export async function storeEvaluation(
  events: EventStore,
  metrics: GatewayMetrics,
  evaluation: Evaluation,
  delivery: { raw: Uint8Array; headers: Record<string, string>; receivedAt: Date; deadline: number },
): Promise<IntakeResult> {
  const { decision } = evaluation;
  const event: NewEvent = {
    source: evaluation.source,
    eventType: evaluation.eventType,
    dedupeKey: evaluation.dedupeKey,
    idMsg: evaluation.idMsg,
    transactionId: evaluation.transactionId,
    operationId: evaluation.operationId,
    // The payload is JSON.parse(raw): omitted, the body travels to the database once.
    rawBody: delivery.raw,
    headers: delivery.headers,
    receivedAt: delivery.receivedAt,
    drift: evaluation.drift,
    outcome: decision.outcome,
    reason: decision.reason,
    answerStatus: decision.answerStatus,
    refundReason: decision.refundReason,
  };
  const result = await events.append(event, { deadline: delivery.deadline });
  const labels = { source: evaluation.source, type: evaluation.eventType };
  if (result.inserted) {
    metrics.events.inc({ ...labels, outcome: result.outcome });
    if (evaluation.drift.length > 0) metrics.drift.inc(labels);
    if (evaluation.eventType === 'MONEY_IN') metrics.decisions.inc({ decision: decision.outcome, rule: decision.rule ?? 'none' });
  } else {
    metrics.duplicates.inc(labels);
  }
  return { seq: result.seq, duplicate: !result.inserted, answerStatus: result.answerStatus, refundReason: result.refundReason };
}

/** The headers kept with an event: what helps an investigation, never a credential. */
const KEPT = ['content-type', 'content-length', 'user-agent', 'x-request-id', 'x-forwarded-for', 'x-webhook-timestamp', 'x-webhook-signature'];

export function keptHeaders(headers: Record<string, string | string[] | undefined>, auth: string | undefined): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of KEPT) {
    const value = headers[name];
    if (value !== undefined) kept[name] = (Array.isArray(value) ? value.join(', ') : value).slice(0, 512);
  }
  // Which credential the delivery used (not the credential): shows a rotation's progress.
  if (auth) kept['x-paykit-auth'] = auth;
  return kept;
}
