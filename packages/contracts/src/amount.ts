// The one rule for a valid core amount, shared by everything that reads one: the webhook gateway
// (whether a MONEY_IN can be judged), the ledger (registerReceivable and, through the SQL
// function paykit_amount (@paykit/ledger's sql/functions/paykit_amount.sql), every amount it reads
// from an event), and the paykit CLI. The platform writes core amounts as decimal strings with
// two decimals ("123.00", "1.95", "0.01" in its documentation), so a valid amount is exactly that:
//
//   - a JSON string (a JSON number is refused: it may already have lost centavos);
//   - ASCII digits, a dot and exactly two decimals, nothing around them (no sign, spaces,
//     thousands separators or exponent);
//   - above zero (0.01 or more): "0.00" moves no money;
//   - at most 9999999999999999.99, what the ledger's numeric(18,2) holds: 16 digits before the
//     point, not counting leading zeros. Leading zeros ("0100.00") are read as the value they
//     write: the value is unambiguous, and none of the platform's documents forbids them (its
//     examples have none), so they are no reason to hold a credit.
//
// AMOUNT_PATTERN is the whole rule for a string. The SQL side cannot import it: @paykit/ledger's
// sql/functions/paykit_amount.sql spells the same pattern, and a test of @paykit/ledger fails if
// the two texts differ.

/** The rule for a string, in a syntax both JavaScript and PostgreSQL's regular expressions read the same way. */
export const AMOUNT_PATTERN = /^(?:0*[1-9][0-9]{0,15}\.[0-9]{2}|0+\.(?:0[1-9]|[1-9][0-9]))$/;

/** The largest valid amount: what numeric(18,2) holds. */
export const AMOUNT_MAX = '9999999999999999.99';

/** How the rule reads a value: the amount and its centavos, or why it is not an amount. */
export type AmountReading =
  | { ok: true; amount: string; centavos: bigint }
  | {
      ok: false;
      /** What was wrong and what to do, naming the value: `amount "0.00" is zero: …`. */
      problem: string;
      /** The same without the name and the value (`is zero: …`), for callers that quote the value themselves. */
      reason: string;
    };

/** Quotes what was sent, bounded (an amount is neither a secret nor a card number). */
const shown = (value: string): string => JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);

const LAYOUT = 'a decimal string with exactly two decimals, such as "1500.00"';

/** True when `value` is a valid amount: a string matching AMOUNT_PATTERN. */
export function isAmount(value: unknown): value is string {
  return typeof value === 'string' && AMOUNT_PATTERN.test(value);
}

/**
 * Reads `value` (any JSON value, as parsed) by the rule. `name` is how the problem calls it
 * ("amount", "body.amount"). The verdict is AMOUNT_PATTERN's; the rest only says why.
 */
export function readAmount(value: unknown, name = 'amount'): AmountReading {
  if (isAmount(value)) {
    const [pesos, centavos] = value.split('.') as [string, string];
    return { ok: true, amount: value, centavos: BigInt(pesos) * 100n + BigInt(centavos) };
  }
  const reason = whyNot(value);
  const quoted = typeof value === 'string' && value !== '' ? ` ${shown(value)}` : '';
  return { ok: false, reason, problem: `${name}${quoted} ${reason}` };
}

/** Why a value that is not an amount is not one; each case says what an amount looks like instead. */
function whyNot(value: unknown): string {
  if (value === undefined || value === null || value === '') return `is missing: send ${LAYOUT}`;
  if (typeof value === 'number')
    return `is the JSON number ${String(value).slice(0, 40)}, not a decimal string: a number may already have lost centavos; send ${LAYOUT}`;
  if (typeof value !== 'string') return `is a JSON ${Array.isArray(value) ? 'array' : typeof value}, not ${LAYOUT}`;
  if (value.trim() !== value) return `is padded with white space: send the bare decimal, such as "100.00"`;
  if (value.startsWith('-') || value.startsWith('+'))
    return value.startsWith('-')
      ? 'is negative: an amount is 0.01 or more (a refund or reversal is an event of its own, never a negative amount)'
      : `has a sign: send the bare decimal, such as "100.00"`;
  if (value.includes(','))
    return 'has a comma: write no thousands separator and a dot before exactly two decimals, such as "1500.00"';
  const digits = /^([0-9]+)(?:\.([0-9]*))?$/.exec(value);
  if (digits === null) return `is not ${LAYOUT}`;
  const [, pesos = '', decimals] = digits;
  const bare = pesos.replace(/^0+(?=[0-9])/, '');
  if (bare.length > 16)
    return `has more than 16 digits before the point: the ledger holds at most ${AMOUNT_MAX} (numeric(18,2))`;
  if (/^0+$/.test(pesos + (decimals ?? ''))) return 'is zero: no money moved; an amount is 0.01 or more';
  if (decimals === undefined || decimals.length !== 2) {
    const count =
      decimals === undefined ? 'no decimals' : decimals.length === 1 ? 'one decimal' : `${decimals.length} decimals`;
    return decimals !== undefined && decimals.length > 2
      ? `has ${count}: a centavo is the smallest unit, so an amount has exactly two decimals (round it explicitly), such as "1.50"`
      : `has ${count}: an amount has exactly two, such as "${bare}.${(decimals ?? '').padEnd(2, '0')}"`;
  }
  return `is not ${LAYOUT}`;
}
