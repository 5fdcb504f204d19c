// The checks a transaction request goes through before anything moves: its body (400
// MISSING_REQUIRED_FIELDS / DATA_ERROR), its client, its instruments (404) and their state (400
// FAILED_PRECONDITION).
import type * as z from 'zod';
import type { Caller } from '../auth/caller.ts';
import { CoreHttpError } from '../errors.ts';
import type { CoreService } from '../index.ts';
import type { Account, Instrument } from '../state.ts';
import { accountOf } from './common.ts';

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let value = raw;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** A zod failure as the core error: a field that is absent (or null) is MISSING_REQUIRED_FIELDS, one that is there but wrong DATA_ERROR. */
export function bodyError(error: z.ZodError, raw: unknown): CoreHttpError {
  const missing = error.issues.filter((issue) => {
    const value = valueAt(raw, issue.path);
    return value === undefined || value === null;
  });
  if (missing.length > 0) {
    const names = missing.map((issue) => issue.path.join('.')).filter(Boolean);
    const what =
      names.length > 0
        ? `Missing required field(s): ${[...new Set(names)].join(', ')}.`
        : 'The request body is required (a JSON object).';
    return new CoreHttpError(400, 'MISSING_REQUIRED_FIELDS', what);
  }
  const details = error.issues.map((issue) =>
    issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message,
  );
  return new CoreHttpError(400, 'DATA_ERROR', `Malformed request: ${details.join('; ')}.`);
}

/** The body's client_id must be the caller's own client. */
export function requireCallerClient(caller: Caller, clientId: string): void {
  if (clientId !== caller.clientId) {
    throw new CoreHttpError(
      400,
      'DATA_ERROR',
      'client_id does not match the client of the bearer token: send your own client id.',
    );
  }
}

/** The sending side: the caller's own ACTIVE SENDER_RECEIVER instrument on an ACTIVE account. */
export function resolveSource(
  core: CoreService,
  caller: Caller,
  id: string,
): { instrument: Instrument; account: Account } {
  const instrument = core.state.instruments.get(id);
  if (!instrument || instrument.clientId !== caller.clientId || instrument.status === 'DELETED') {
    throw new CoreHttpError(404, 'RESOURCE_NOT_FOUND', `Source instrument ${id} not found for this client.`);
  }
  if (instrument.type !== 'SENDER_RECEIVER') {
    throw new CoreHttpError(
      400,
      'FAILED_PRECONDITION',
      `Source instrument ${id} is a RECEIVER instrument: only a SENDER_RECEIVER instrument can send.`,
    );
  }
  if (instrument.status !== 'ACTIVE')
    throw new CoreHttpError(400, 'FAILED_PRECONDITION', `Source instrument ${id} is ${instrument.status}.`);
  const account = accountOf(core, instrument);
  if (!account)
    throw new CoreHttpError(404, 'RESOURCE_NOT_FOUND', `The account of source instrument ${id} was not found.`);
  if (account.status !== 'ACTIVE')
    throw new CoreHttpError(
      400,
      'FAILED_PRECONDITION',
      `The account of source instrument ${id} is ${account.status}: it cannot send.`,
    );
  return { instrument, account };
}

/**
 * The receiving side. sandbox choice: an instrument is visible as a destination when the caller
 * registered it or when it is a platform instrument (another client's platform account can
 * receive an internal transfer); DELETED ones do not exist any more; BLOCKED instruments and
 * non-ACTIVE accounts cannot receive (400 FAILED_PRECONDITION).
 */
export function resolveDestination(core: CoreService, caller: Caller, id: string, sourceId: string): Instrument {
  const instrument = core.state.instruments.get(id);
  const visible =
    instrument !== undefined &&
    (instrument.clientId === caller.clientId || core.state.isPlatformInstrument(instrument));
  if (!instrument || !visible || instrument.status === 'DELETED') {
    throw new CoreHttpError(404, 'RESOURCE_NOT_FOUND', `Destination instrument ${id} not found.`);
  }
  if (id === sourceId)
    throw new CoreHttpError(400, 'DATA_ERROR', 'Source and destination instruments are the same instrument.');
  if (instrument.status !== 'ACTIVE')
    throw new CoreHttpError(
      400,
      'FAILED_PRECONDITION',
      `Destination instrument ${id} is ${instrument.status}: it cannot receive.`,
    );
  const account = accountOf(core, instrument);
  if (instrument.accountId !== undefined && !account)
    throw new CoreHttpError(404, 'RESOURCE_NOT_FOUND', `The account of destination instrument ${id} was not found.`);
  if (account && account.status !== 'ACTIVE')
    throw new CoreHttpError(
      400,
      'FAILED_PRECONDITION',
      `The account of destination instrument ${id} is ${account.status}: it cannot receive.`,
    );
  return instrument;
}

export function requireFunds(account: Account, centavos: bigint): void {
  if (account.balanceCentavos < centavos) {
    throw new CoreHttpError(400, 'FAILED_PRECONDITION', 'Insufficient funds in the source account.');
  }
}
