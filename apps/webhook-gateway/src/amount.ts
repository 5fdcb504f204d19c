// A MONEY_IN amount at the edge. The platform documents it as a decimal string with two decimals
// ("123.00"); only that form, above zero and small enough for the ledger, is judged by the rules.
// Anything else — a zero, more digits than the ledger's numeric(18,2) holds, spaces around it, a
// JSON number, another layout — is never applied and never refused (a 422 would refund it): the
// credit is stored and held (202) with a reason naming what was wrong, for a person to decide.
import { toCentavos } from '@paykit/runtime';

/** The largest amount numeric(18,2) holds, in centavos: 9999999999999999.99. */
export const LEDGER_MAX_CENTAVOS = 10n ** 18n - 1n;

const TWO_DECIMALS = /^\d+\.\d{2}$/;

export type AmountReading = { ok: true; amount: string; centavos: bigint } | { ok: false; problem: string };

/** Quotes what was sent, bounded (an amount is neither a secret nor a card number). */
const shown = (value: string): string => JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);

export function readCreditAmount(value: unknown): AmountReading {
  if (value === undefined || value === null || value === '') return { ok: false, problem: 'amount is missing' };
  if (typeof value === 'number')
    return {
      ok: false,
      problem: `amount is the JSON number ${String(value).slice(0, 40)}, not a decimal string with two decimals: a number may already have lost centavos`,
    };
  if (typeof value !== 'string')
    return {
      ok: false,
      problem: `amount is a JSON ${Array.isArray(value) ? 'array' : typeof value}, not a decimal string with two decimals`,
    };
  if (value.trim() !== value)
    return {
      ok: false,
      problem: `amount ${shown(value)} is padded with white space; the platform sends a bare decimal with two decimals`,
    };
  if (!TWO_DECIMALS.test(value))
    return { ok: false, problem: `amount ${shown(value)} is not a decimal with two decimals (like "123.00")` };
  const centavos = toCentavos(value);
  if (centavos === 0n) return { ok: false, problem: `amount ${shown(value)} is zero: no money moved` };
  if (centavos > LEDGER_MAX_CENTAVOS)
    return {
      ok: false,
      problem: `amount ${shown(value)} has more digits than the ledger holds (numeric(18,2): at most 9999999999999999.99)`,
    };
  return { ok: true, amount: value, centavos };
}
