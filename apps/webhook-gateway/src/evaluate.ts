// What a delivery is, read from its raw bytes: its type, the key it is deduplicated by, how it
// differs from the spec, and (MONEY_IN) the decision. Shared by intake and by replay, so a replay
// judges a stored event exactly as a delivery would be judged today.
//
// Only two things refuse a body here: bytes that are not UTF-8 JSON (400: the platform sends
// JSON, so something in between broke it and a redelivery may not) and a JSON value that cannot be
// this event at all (422: not an object, or another msg_name than the URL's). Everything else,
// however different from the spec, is stored with its drift and answered 2xx; a difference of
// format (a date form, a check digit, an id's shape) never changes a MONEY_IN decision.
import { createHash } from 'node:crypto';
import { type CoreEventType } from '@paykit/contracts';
import { CASH_EVENT_NAMES, parseCashEvent } from '@paykit/cash-client';
import { parseCoreEvent } from '@paykit/core-client';
import { zReportEvent } from '@paykit/core-client/zod';
import { describeValue, formatPath, readTolerantly, type DriftReport } from '@paykit/runtime';
import { isValidClabe } from '@paykit/domain';
import type { Account, DriftNote, NewEvent } from '@paykit/store';
import { accountToRead, decideMoneyIn, moneyInFacts, type Decision, type MoneyInRule } from './policy.ts';
import type { ProblemCode } from './problems.ts';

/** What the store is given about a delivery, plus the decision taken on it. */
export interface Evaluation
  extends Pick<NewEvent, 'source' | 'eventType' | 'dedupeKey' | 'idMsg' | 'transactionId' | 'operationId' | 'drift'> {
  payload: Record<string, unknown>;
  decision: Decision;
  /** MONEY_IN: the account the decision read, and the decision again for the account as it is now (the commit's account guard). */
  account?: AccountRead;
}

export interface AccountRead {
  clabe: string;
  /** As read (undefined: unknown to the store). */
  read: Account | undefined;
  decideAgain(account: Account | undefined): Decision;
}

export interface Refusal {
  refused: true;
  status: 400 | 422;
  error: ProblemCode;
  message: string;
}

export interface EvaluationDeps {
  /**
   * The account a MONEY_IN is for. It may answer a copy kept in memory (intake commits the decision
   * with an account guard, which catches a change) or read the store (replay, which has no commit).
   * `deadline`: a performance.now() time past which a lookup fails with StoreUnavailableError.
   */
  readAccount(clabe: string, deadline?: number): Promise<Account | undefined>;
  rules: readonly MoneyInRule[];
}

const STORED: Decision = { outcome: 'stored', answerStatus: 200, reason: null, refundReason: null, rule: null };
const utf8 = new TextDecoder('utf-8', { fatal: true });

const refuse = (status: 400 | 422, error: ProblemCode, message: string): Refusal => ({
  refused: true,
  status,
  error,
  message,
});

/** The body as a JSON object, or why it is not one. */
export function readJsonObject(
  raw: Uint8Array,
  what: string,
): { refused: false; value: Record<string, unknown> } | Refusal {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    return refuse(
      400,
      'invalid_utf8',
      `The body is not valid UTF-8; ${what} deliveries are UTF-8 JSON. The platform will redeliver; if this repeats, something between it and the gateway re-encodes bodies.`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return refuse(
      400,
      'invalid_json',
      `The body is not JSON (${raw.byteLength} bytes); ${what} deliveries are JSON objects.`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return refuse(
      422,
      'not_an_event',
      `The body is ${value === null ? 'null' : Array.isArray(value) ? 'an array' : `a JSON ${typeof value}`}; a ${what} event is a JSON object.`,
    );
  }
  return { refused: false, value: value as Record<string, unknown> };
}

function sha256(raw: Uint8Array): string {
  return createHash('sha256').update(raw).digest('hex');
}

function driftCollector(): { notes: DriftNote[]; onDrift(report: DriftReport): void } {
  const notes: DriftNote[] = [];
  return {
    notes,
    onDrift: (report) =>
      notes.push({ path: formatPath(report.path), kind: report.kind, expected: report.expected, seen: report.seen }),
  };
}

const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** A core delivery to the URL of `route`; `deadline` bounds the account lookup (the delivery's budget). */
export async function evaluateCore(
  route: CoreEventType,
  raw: Uint8Array,
  deps: EvaluationDeps,
  deadline?: number,
): Promise<Evaluation | Refusal> {
  const read = readJsonObject(raw, 'core');
  if (read.refused) return read;
  const record = read.value;
  const { notes, onDrift } = driftCollector();

  if (route === 'REPORT') {
    // REPORT is flat: an envelope here is another event sent to the wrong URL.
    if (record.msg_name !== undefined || (record.body !== undefined && record.id_msg !== undefined)) {
      const name = typeof record.msg_name === 'string' ? record.msg_name.slice(0, 32) : 'an enveloped event';
      return refuse(
        422,
        'wrong_event',
        `This is ${name}, not a REPORT (REPORT is flat, without id_msg/msg_name/body): check the URL registered for each webhook type.`,
      );
    }
    readTolerantly(zReportEvent, record, { product: 'core', operation: 'event REPORT' }, { onDrift });
    const clientId = str(record.client_id);
    const fileName = str(record.file_name);
    return {
      source: 'core',
      eventType: 'REPORT',
      dedupeKey:
        clientId && fileName
          ? `core:report:${clientId.toLowerCase()}:${fileName}`
          : `core:report:sha256:${sha256(raw)}`,
      idMsg: null,
      transactionId: null,
      operationId: null,
      payload: record,
      drift: notes,
      decision: STORED,
    };
  }

  if (record.msg_name !== route) {
    const seen = typeof record.msg_name === 'string' ? `msg_name "${record.msg_name.slice(0, 32)}"` : 'no msg_name';
    return refuse(
      422,
      'wrong_event',
      `This URL receives ${route} events; the body has ${seen}. Check the URL registered for each webhook type.`,
    );
  }
  const parsed = parseCoreEvent(record, { onDrift });
  const idMsg = str(record.id_msg);
  const body =
    record.body !== null && typeof record.body === 'object' && !Array.isArray(record.body)
      ? (record.body as Record<string, unknown>)
      : undefined;
  let decision = STORED;
  let account: AccountRead | undefined;
  if (parsed.kind === 'MONEY_IN') {
    const facts = moneyInFacts(body);
    // A check digit is a format: reported as drift, while the account is still looked up as sent.
    if (facts.beneficiaryAccount !== undefined && !isValidClabe(facts.beneficiaryAccount)) {
      notes.push({
        path: 'body.beneficiary_account',
        kind: 'mismatch',
        expected: 'a CLABE: 18 digits ending in their control digit',
        seen: describeValue(facts.beneficiaryAccount),
      });
    }
    const clabe = accountToRead(facts);
    const read = clabe === undefined ? undefined : await deps.readAccount(clabe, deadline);
    decision = decideMoneyIn(facts, read, deps.rules);
    if (clabe !== undefined) account = { clabe, read, decideAgain: (now) => decideMoneyIn(facts, now, deps.rules) };
  }
  return {
    source: 'core',
    eventType: route,
    // The event type is part of the key (an id_msg names a message of one type), and without an
    // id_msg (drift) the exact bytes identify a redelivery.
    dedupeKey: idMsg ? `core:${route}:${idMsg.toLowerCase()}` : `core:${route}:sha256:${sha256(raw)}`,
    idMsg,
    transactionId: str(body?.id),
    operationId: null,
    payload: record,
    drift: notes,
    decision,
    ...(account === undefined ? {} : { account }),
  };
}

/** A cash delivery whose signature has been verified. */
export function evaluateCash(raw: Uint8Array): Evaluation | Refusal {
  const read = readJsonObject(raw, 'cash');
  if (read.refused) return read;
  const record = read.value;
  const event = record.event;
  if (typeof event !== 'string' || event === '') {
    return refuse(
      422,
      'not_an_event',
      `A cash delivery has an "event" field (${CASH_EVENT_NAMES.join(', ')}); this body has ${event === undefined ? 'none' : `a ${typeof event}`}.`,
    );
  }
  const { notes, onDrift } = driftCollector();
  if ((CASH_EVENT_NAMES as readonly string[]).includes(event)) parseCashEvent(record, { onDrift });
  // A signed event this version does not know: stored, so nothing the platform sent is lost.
  else
    notes.push({
      path: 'event',
      kind: 'mismatch',
      expected: `one of ${CASH_EVENT_NAMES.join(', ')}`,
      seen: `"${event.slice(0, 64)}"`,
    });
  const operation = record.operation_id;
  const operationId =
    typeof operation === 'number' && Number.isSafeInteger(operation)
      ? String(operation)
      : typeof operation === 'string' && /^\d{1,19}$/.test(operation)
        ? operation
        : null;
  const processedAt = str(record.processed_at);
  const dedupeKey =
    event === 'webhook.activation' && processedAt
      ? `cash:activation:${processedAt}`
      : operationId
        ? `cash:${operationId}:${event.slice(0, 64)}`
        : `cash:sha256:${sha256(raw)}`;
  return {
    source: 'cash',
    eventType: event.slice(0, 64),
    dedupeKey,
    idMsg: null,
    transactionId: null,
    operationId,
    payload: record,
    drift: notes,
    decision: STORED,
  };
}
