// From an evaluated delivery to its answer: commit it to the store (group-committed with every
// other delivery in flight) and answer with the decision stored for it. A repeat gets the first
// delivery's answer again. Nothing is answered 2xx before its commit; a store that cannot commit
// before the deadline gets 503, and the platform redelivers. A MONEY_IN decided on an account that
// changed before the commit is decided again here, on the account the store saw, and appended again.
import {
  AccountChangedError,
  StoreUnavailableError,
  type Account,
  type EventStore,
  type NewEvent,
} from '@paykit/store';
import type { Evaluation } from './evaluate.ts';
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

/** Decisions taken again on an account that keeps changing under them, before giving up (503: redeliver). */
const GUARD_ATTEMPTS = 5;

const storedDecision = (decision: Decision) => ({
  outcome: decision.outcome,
  reason: decision.reason,
  answerStatus: decision.answerStatus,
  refundReason: decision.refundReason,
});

export async function storeEvaluation(
  events: EventStore,
  metrics: GatewayMetrics,
  evaluation: Evaluation,
  delivery: Delivery,
): Promise<IntakeResult> {
  let decision = evaluation.decision;
  const account = evaluation.account;
  let guard: NewEvent['accountGuard'] =
    account === undefined ? undefined : { clabe: account.clabe, version: account.read?.version ?? null };
  const event = (): NewEvent => ({
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
    ...storedDecision(decision),
    ...(guard === undefined ? {} : { accountGuard: guard }),
  });
  let result;
  for (let attempt = 1; ; attempt++) {
    try {
      result = await events.append(event(), { deadline: delivery.deadline });
      break;
    } catch (error) {
      if (!(error instanceof AccountChangedError) || account === undefined) throw error;
      if (attempt === GUARD_ATTEMPTS) {
        throw new StoreUnavailableError(
          `the account the decision read changed ${attempt} times while the event was being committed; nothing was stored: append it again`,
        );
      }
      delivery.onAccountChanged?.(account.clabe, error.account);
      decision = account.decideAgain(error.account);
      guard = { clabe: account.clabe, version: error.account?.version ?? null };
    }
  }
  const labels = { source: evaluation.source, type: eventTypeLabel(evaluation.source, evaluation.eventType) };
  if (result.inserted) {
    metrics.events.inc({ ...labels, outcome: result.outcome });
    if (evaluation.drift.length > 0) metrics.drift.inc(labels);
    if (evaluation.eventType === 'MONEY_IN')
      metrics.decisions.inc({ decision: decision.outcome, rule: decision.rule ?? 'none' });
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
