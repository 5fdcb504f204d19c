// Recording the direct debit charges we create: the direct debit API's answer to POST /charges,
// keyed by charge id (a second recording of one charge changes nothing). The charge_result events
// the platform sends are applied by the worker (../apply/events.ts); the state of a charge is
// computed when read from both, so a result that arrives before its charge is recorded ends the same,
// and so is its journal (../journal/post.ts), posted by whichever of the two writers comes second.
import { StoreInputError, type Database } from '@paykit/store';
import { postItems } from '../journal/post.ts';
import { lockItems, retryRaces } from '../item-locks.ts';
import { optionalText, requiredText } from './text.ts';

/** What @paykit/direct-debit-client's onChargeCreated hands over (structurally: the ledger does not depend on the client). */
export interface CreatedChargeLike {
  charge: unknown;
}

export interface ChargeRecord {
  chargeId: string;
  reference: string | null;
  /** Decimal text of the answer's JSON number (100, 100.0, 250.5), up to two decimals. */
  amount: string;
  currency: string;
  status: string | null;
  createdAt: Date;
  response: unknown;
}

// A JSON number's text: JSON.stringify gives the shortest form that reads back as the same number,
// which is the decimal the platform sent whenever it has two decimals or fewer.
const AMOUNT = /^\d{1,16}(\.\d{1,2})?$/;

/**
 * The recorder to pass as `createDirectDebitClient({ onChargeCreated })`: every created charge
 * lands in the ledger before `charges.create` returns (if it cannot, the client throws
 * ChargeRecordingError carrying the charge, so it can be recorded later).
 */
export function createChargeRecorder(db: Database) {
  return async (created: CreatedChargeLike): Promise<void> => {
    await recordCharge(db, chargeFromApi(created.charge));
  };
}

/** Reads a charge as the API returned it; StoreInputError names the field at fault. */
export function chargeFromApi(charge: unknown): ChargeRecord {
  if (typeof charge !== 'object' || charge === null || Array.isArray(charge))
    throw new StoreInputError('charge must be an object (the charge as the API returned it)');
  const c = charge as Record<string, unknown>;
  const createdAt = typeof c.created_at === 'string' ? new Date(c.created_at) : new Date();
  return {
    chargeId: requiredText(c.id, 'charge.id', 'charge'),
    reference: optionalText(c.reference),
    amount: amountText(c.amount),
    currency: requiredText(c.currency, 'charge.currency', 'charge').toLowerCase(),
    status: optionalText(c.status),
    createdAt: Number.isNaN(createdAt.getTime()) ? new Date() : createdAt,
    response: charge,
  };
}

/** Inserts the charge once per charge id. Returns false when it was already recorded. */
export async function recordCharge(db: Database, record: ChargeRecord): Promise<boolean> {
  requiredText(record.chargeId, 'chargeId', 'charge');
  if (!AMOUNT.test(record.amount))
    throw new StoreInputError('amount must be pesos with up to two decimals, such as "100" or "250.50"');
  if (!(record.createdAt instanceof Date) || Number.isNaN(record.createdAt.getTime()))
    throw new StoreInputError('createdAt must be a valid Date');
  return retryRaces(() =>
    db.transaction(async (tx) => {
      const { rowCount } = await tx.query(
        `INSERT INTO ledger_dd_charges (charge_id, reference, amount, currency, status, created_at, response)
         VALUES ($1, $2, $3::numeric(18,2), $4, $5, $6::timestamptz, $7::jsonb)
         ON CONFLICT (charge_id) DO NOTHING`,
        [
          record.chargeId,
          record.reference,
          record.amount,
          record.currency,
          record.status,
          record.createdAt.toISOString(),
          JSON.stringify(record.response ?? {}),
        ],
      );
      if (rowCount === 0) return false;
      // A result that came first is booked now with the recorded amount, under the charge's lock.
      await lockItems(tx, [`dd:${record.chargeId}`]);
      await postItems(tx, [`dd:${record.chargeId}`], 'record');
      return true;
    }),
  );
}

function amountText(value: unknown): string {
  const text =
    typeof value === 'number' && Number.isFinite(value)
      ? JSON.stringify(value)
      : typeof value === 'string'
        ? value
        : '';
  if (!AMOUNT.test(text))
    throw new StoreInputError(
      'charge.amount is missing or not an amount of pesos with up to two decimals (a JSON number such as 100 or 250.5)',
    );
  return text;
}
