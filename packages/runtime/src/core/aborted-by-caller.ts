// The error a caller's AbortSignal turns a call into, its message saying where the call was and
// what that means for a call that changes something (look it up before repeating it).
import { UserAbortError, type AbortStage } from './errors.ts';

const ABORT_CONSEQUENCE: Record<AbortStage, string> = {
  'before-sending': 'nothing was sent; call again when it should be made',
  'signing-in': 'it was not sent; the sign-in goes on and later calls use its token; call again when it should be made',
  'in-flight':
    'the platform may have received it: for a call that changes something (a transfer, a validation), look it up by its Idempotency-Key or reference before repeating it',
  'between-attempts':
    'an earlier attempt may have reached the platform: for a call that changes something, look it up by its Idempotency-Key or reference before repeating it',
};

const ABORT_WHEN: Record<AbortStage, string> = {
  'before-sending': 'before the request was sent',
  'signing-in': 'while the client was signing in',
  'in-flight': 'while the request was in flight',
  'between-attempts': 'while waiting to retry',
};

/**
 * The UserAbortError for `reason` (the signal's), named after the call. The message names the
 * reason's kind only (AbortError, TimeoutError…): its text is the caller's and may say anything.
 */
export function abortedByCaller(where: string, stage: AbortStage, reason: unknown, requestId?: string): UserAbortError {
  const kind =
    reason instanceof Error ? reason.name : reason === undefined ? 'no reason given' : `a ${typeof reason} reason`;
  const id = requestId === undefined ? '' : `, request id ${requestId}`;
  return new UserAbortError(
    `${where}: aborted by the caller's signal ${ABORT_WHEN[stage]} (${kind}${id}) — ${ABORT_CONSEQUENCE[stage]}`,
    requestId === undefined ? { stage, reason } : { stage, reason, requestId },
  );
}
