// Text fields of an API answer the ledger records (a transaction, a charge): a required one is
// refused with StoreInputError naming the field, an optional one that is empty or holds a NUL
// (which PostgreSQL text cannot store) is read as absent.
import { StoreInputError } from '@paykit/store';

/** `what`: the record, as the message names it ("transaction", "charge"). */
export function requiredText(value: unknown, field: string, what: string): string {
  if (typeof value !== 'string' || value === '')
    throw new StoreInputError(`${field} is missing: record the ${what} exactly as the API returned it`);
  if (value.includes('\0')) throw new StoreInputError(`${field} contains a NUL character`);
  return value;
}

export function optionalText(value: unknown): string | null {
  return typeof value === 'string' && value !== '' && !value.includes('\0') ? value : null;
}
