// Idempotency-Keys. Penny validation: the same key with the same payload gives the same
// transaction again. money_out (the platform's idempotency guide): the first answer, success or
// error, is kept 24 h from the first request on the sandbox clock and replayed to identical
// retries. Both: another payload, or a first request still running, is a 409.
import { CoreHttpError } from '../errors.ts';
import type { CoreState, IdempotencyEntry } from '../state.ts';

/** JSON with object keys sorted at every level: equal payloads give equal text whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export type Claim =
  | { kind: 'replay'; transactionId: string }
  | {
      kind: 'new';
      /** The request succeeded: later requests with this key get this transaction. */
      done(transactionId: string): void;
      /** The request failed: the key is free again. */
      release(): void;
    };

/**
 * Claims a key for a request, synchronously (before any await), so a concurrent request with
 * the same key sees it in progress. Keys are scoped to the client.
 * sandbox choices: keys never expire (the reference does not show a TTL); a request that ends
 * in an error does not keep its key, so it can be retried with a corrected payload; a replay
 * returns the transaction as it is now.
 */
export function claimIdempotencyKey(state: CoreState, clientId: string, key: string, fingerprint: string): Claim {
  const slot = `${clientId}:${key.toLowerCase()}`;
  const entry = state.idempotency.get(slot);
  if (entry) {
    if (entry.fingerprint !== fingerprint) {
      throw new CoreHttpError(
        409,
        'UNIQUE_VIOLATION',
        'Idempotency-Key reused with a different payload: send a new key for a different request.',
      );
    }
    if (entry.state === 'in-progress' || entry.transactionId === undefined) {
      throw new CoreHttpError(
        409,
        'UNIQUE_VIOLATION',
        'The original request with this Idempotency-Key is still in progress: retry later with the same key.',
      );
    }
    return { kind: 'replay', transactionId: entry.transactionId };
  }
  state.idempotency.set(slot, { key, clientId, fingerprint, state: 'in-progress' });
  return {
    kind: 'new',
    done(transactionId) {
      state.idempotency.set(slot, { key, clientId, fingerprint, state: 'done', transactionId });
    },
    release() {
      if (state.idempotency.get(slot)?.state === 'in-progress') state.idempotency.delete(slot);
    },
  };
}

/** How long money_out keeps a key's first answer: 24 hours from the first request. */
export const MONEY_OUT_KEY_TTL_MS = 24 * 3600 * 1000;

export type AnswerClaim =
  | { kind: 'replay'; answer: { status: number; body: unknown } }
  | {
      kind: 'new';
      /** Keeps the first answer (success or error) for identical retries until the TTL ends. */
      done(answer: { status: number; body: unknown }): void;
    };

/** The state-map slot of a money_out key (keys are scoped to the client). */
export function moneyOutSlot(clientId: string, key: string): string {
  return `money_out:${clientId}:${key.toLowerCase()}`;
}

/**
 * money_out's key, as the platform's idempotency guide describes it: claimed synchronously (a
 * near-simultaneous duplicate is 409 `operation_in_progress`), another body under the same key is
 * 409, and an entry older than 24 h on the sandbox clock is forgotten (the key is new again).
 */
export function claimMoneyOutKey(
  state: CoreState,
  clientId: string,
  key: string,
  fingerprint: string,
  nowMs: number,
): AnswerClaim {
  const slot = moneyOutSlot(clientId, key);
  const entry = state.idempotency.get(slot);
  if (entry && (entry.expiresAtMs === undefined || nowMs < entry.expiresAtMs)) {
    if (entry.fingerprint !== fingerprint) {
      throw new CoreHttpError(
        409,
        'UNIQUE_VIOLATION',
        'Idempotency key payload mismatch: the payload does not match the cached key. Generate a new key for a different body.',
      );
    }
    if (entry.state === 'in-progress' || entry.answer === undefined) {
      throw new CoreHttpError(
        409,
        'FAILED_PRECONDITION',
        'operation_in_progress: Operation money_out in progress. Retry later with the same key and body.',
      );
    }
    return { kind: 'replay', answer: entry.answer };
  }
  const first: IdempotencyEntry = {
    key,
    clientId,
    fingerprint,
    state: 'in-progress',
    expiresAtMs: nowMs + MONEY_OUT_KEY_TTL_MS,
  };
  state.idempotency.set(slot, first);
  return {
    kind: 'new',
    done(answer) {
      state.idempotency.set(slot, { ...first, state: 'done', answer });
    },
  };
}
