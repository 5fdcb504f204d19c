// Handing every created charge to the caller's recorder (onChargeCreated) before charges.create
// returns, so the ledger knows what we asked the platform to collect. A charge the platform created
// is never dropped: a recorder that fails, or an answer whose shape differs from the spec (strict
// mode), throws an error carrying the charge.
import { DriftError, PaykitError } from '@paykit/runtime';
import type { Charge } from './generated/types.gen.ts';

export interface CreatedCharge {
  /** The API's answer to POST /charges (in strict mode with drift, the answer as received). */
  charge: Charge;
}

export type OnChargeCreated = (created: CreatedCharge) => void | Promise<void>;

/** The platform created the charge, but onChargeCreated threw: record it from `charge`; do not create it again. */
export class ChargeRecordingError extends PaykitError {
  readonly charge: Charge;
  constructor(message: string, charge: Charge, options?: { cause: Error }) {
    super(message, options);
    this.charge = charge;
  }
}

/** Calls `create`, then the hook with its answer (also with a drifting answer, which is then rethrown). */
export async function createdCharge(hook: OnChargeCreated | undefined, create: () => Promise<Charge>): Promise<Charge> {
  let charge: Charge;
  try {
    charge = await create();
  } catch (error) {
    if (hook && error instanceof DriftError && error.received !== undefined)
      await record(hook, error.received as Charge);
    throw error;
  }
  if (hook) await record(hook, charge);
  return charge;
}

async function record(hook: OnChargeCreated, charge: Charge): Promise<void> {
  try {
    await hook({ charge });
  } catch (error) {
    const id = (charge as { id?: unknown } | null)?.id;
    throw new ChargeRecordingError(
      `direct debit createCharge: the platform created charge ${typeof id === 'string' ? id : '(id not returned)'}, but onChargeCreated failed: record it from error.charge; do not create the charge again (it will be collected).`,
      charge,
      error instanceof Error ? { cause: error } : undefined,
    );
  }
}
