// From an evaluated delivery to its answer: commit it to the store (group-committed with every
// other delivery in flight) and answer with the decision stored for it. A repeat gets the first
// delivery's answer again. Nothing is answered 2xx before its commit; a store that cannot commit
// before the deadline gets 503, and the platform redelivers.
import type { Account, EventStore, NewEvent } from '@paykit/store';
import type { AccountRead, Evaluation } from './evaluate.ts';
import { eventTypeLabel, type GatewayMetrics } from './metrics.ts';
import type { Decision } from './policy.ts';

export interface IntakeResult {
  seq: string;
  duplicate: boolean;
  answerStatus: number;
  refundReason: string | null;
}

export interface Delivery {
  raw: Uint8Array;
  headers: Record<string, string>;
  receivedAt: Date;
  deadline: number;
  /** The account changed between the decision and its commit: what it is now (the cache keeps it). */
  onAccountChanged?(clabe: string, account: Account | undefined): void;
}

const storedDecision = (decision: Decision) => ({
  outcome: decision.outcome,
  reason: decision.reason,
  answerStatus: decision.answerStatus,
  refundReason: decision.refundReason,
});

/** The account guard of a MONEY_IN decision: taken again, and kept in `decided`, if the account changed before the commit. */
function accountGuard(
  account: AccountRead,
  decided: { decision: Decision },
  delivery: Delivery,
): NewEvent['accountGuard'] {
  return {
    clabe: account.clabe,
    version: account.read?.version ?? null,
    redecide: (now) => {
      delivery.onAccountChanged?.(account.clabe, now);
      decided.decision = account.decideAgain(now);
      return storedDecision(decided.decision);
    },
  };
}

export async function storeEvaluation(
  events: EventStore,
  metrics: GatewayMetrics,
  evaluation: Evaluation,
  delivery: Delivery,
): Promise<IntakeResult> {
  // What was stored: the evaluation's decision, or the one taken again on a changed account.
  const decided = { decision: evaluation.decision };
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
    ...storedDecision(evaluation.decision),
    ...(evaluation.account === undefined ? {} : { accountGuard: accountGuard(evaluation.account, decided, delivery) }),
  };
  const result = await events.append(event, { deadline: delivery.deadline });
  const labels = { source: evaluation.source, type: eventTypeLabel(evaluation.source, evaluation.eventType) };
  if (result.inserted) {
    metrics.events.inc({ ...labels, outcome: result.outcome });
    if (evaluation.drift.length > 0) metrics.drift.inc(labels);
    if (evaluation.eventType === 'MONEY_IN')
      metrics.decisions.inc({ decision: decided.decision.outcome, rule: decided.decision.rule ?? 'none' });
  } else {
    metrics.duplicates.inc(labels);
  }
  return {
    seq: result.seq,
    duplicate: !result.inserted,
    answerStatus: result.answerStatus,
    refundReason: result.refundReason,
  };
}

/** The headers kept with an event: what helps an investigation, never a credential. */
const KEPT = [
  'content-type',
  'content-length',
  'user-agent',
  'x-request-id',
  'x-forwarded-for',
  'x-webhook-timestamp',
  'x-webhook-signature',
];

export function keptHeaders(
  headers: Record<string, string | string[] | undefined>,
  auth: string | undefined,
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of KEPT) {
    const value = headers[name];
    if (value !== undefined) kept[name] = (Array.isArray(value) ? value.join(', ') : value).slice(0, 512);
  }
  // Which credential the delivery used (not the credential): shows a rotation's progress.
  if (auth) kept['x-paykit-auth'] = auth;
  return kept;
}
