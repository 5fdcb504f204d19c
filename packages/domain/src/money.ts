// Money never passes through a float: the platform's core amounts are decimal strings with two
// decimals ("1234.56") (the cash client converts its integer MXN with these), and everything in between is integer
// centavos held in a bigint (exact at any size; a number stops being exact past 2^53).
import { PaykitError } from './paykit-error.ts';

export class MoneyError extends PaykitError {
  override readonly name = 'MoneyError';
}

export interface ToCentavosOptions {
  /** Also accept "12" and "12.5" (one or no decimals). The platform always sends two. */
  lenient?: boolean;
  /** Also accept a leading "-" (what fromCentavos writes for a negative amount). Platform amounts are never negative. */
  signed?: boolean;
}

const STRICT_AMOUNT = /^(-?)(\d+)\.(\d{2})$/;
const LENIENT_AMOUNT = /^(-?)(\d+)(?:\.(\d{1,2}))?$/;

/** "1234.56" → 123456n. Only the platform's layout (digits, a dot, exactly two digits) unless `lenient`. */
export function toCentavos(amount: string, options: ToCentavosOptions = {}): bigint {
  if (typeof amount !== 'string') throw new MoneyError(notAStringMessage(amount));
  const match = (options.lenient ? LENIENT_AMOUNT : STRICT_AMOUNT).exec(amount);
  if (!match) throw new MoneyError(badLayoutMessage(amount, options));
  const [, sign = '', pesos = '0', fraction = ''] = match;
  if (sign === '-' && !options.signed) {
    throw new MoneyError(
      `amount ${quote(amount)} is negative: platform amounts never are; pass { signed: true } if you are reading back a signed amount of your own`,
    );
  }
  const centavos = BigInt(pesos) * 100n + BigInt(fraction.padEnd(2, '0'));
  return sign === '-' ? -centavos : centavos;
}

/** 123456n → "1234.56"; -5n → "-0.05". The platform's layout, so toCentavos reads it back. */
export function fromCentavos(centavos: bigint): string {
  if (typeof centavos !== 'bigint') {
    throw new MoneyError(
      `centavos are a bigint (for example 1250n for "12.50"), never a number: got ${describe(centavos)}; ` +
        'use toCentavos("12.50") to read a platform amount, or BigInt(n) for an integer count of centavos',
    );
  }
  const negative = centavos < 0n;
  const digits = (negative ? -centavos : centavos).toString().padStart(3, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/**
 * "$1,234.56" (es-MX by default). Formats the exact decimal string, never a float, so no digit is lost
 * at any size; past what Intl formats exactly (about 10^308) it groups the digits itself.
 */
export function formatMXN(centavos: bigint, options: { locale?: string } = {}): string {
  const amount = fromCentavos(centavos);
  const format = currencyFormat(options.locale ?? 'es-MX');
  // Intl.NumberFormat reads a string as an exact decimal (no conversion to a double).
  const formatted = format.formatToParts(amount as `${number}`);
  const integerDigits = amount.replace(/^-/, '').split('.')[0] ?? '';
  const shownDigits = formatted
    .filter((part) => part.type === 'integer')
    .map((part) => part.value)
    .join('');
  if (shownDigits === integerDigits || toAsciiDigits(shownDigits, format) === integerDigits)
    return formatted.map((part) => part.value).join('');
  return formatByHand(amount, format);
}

const AMOUNT_TEXT = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * "MXN 13,065.50" from "13065.50"; "MXN 1,300" from a cash amount's "1300"; "MXN -5.00". For people
 * (a CLI's table, a console's page), never for machines: the amount as a decimal string, digits
 * grouped by three, its decimals kept exactly as given (no float, no rounding). The currency is an
 * ISO 4217 code, upper-cased ("mxn" → "MXN").
 */
export function formatMoney(amount: string, currency: string): string {
  const match = typeof amount === 'string' ? AMOUNT_TEXT.exec(amount) : null;
  if (!match)
    throw new MoneyError(
      typeof amount === 'string'
        ? badLayoutMessage(amount, { lenient: true, signed: true })
        : notAStringMessage(amount),
    );
  if (typeof currency !== 'string' || !/^[A-Za-z]{3}$/.test(currency))
    throw new MoneyError(`currency must be a 3-letter ISO 4217 code such as "MXN": got ${describe(currency)}`);
  const [, sign = '', integer = '0', fraction] = match;
  const grouped = integer.replace(/^0+(?=\d)/, '').replace(/\B(?=(\d{3})+$)/g, ',');
  return `${currency.toUpperCase()} ${sign}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
}

const currencyFormats = new Map<string, Intl.NumberFormat>();

function currencyFormat(locale: string): Intl.NumberFormat {
  let format = currencyFormats.get(locale);
  if (!format) {
    format = new Intl.NumberFormat(locale, {
      style: 'currency',
      currency: 'MXN',
      minimumFractionDigits: 2,
      maximumFractionDigits: 2,
    });
    // Bounded: a caller passing user-chosen locales must not grow this without limit.
    if (currencyFormats.size < 32) currencyFormats.set(locale, format);
  }
  return format;
}

function formatByHand(amount: string, format: Intl.NumberFormat): string {
  const negative = amount.startsWith('-');
  const [integer = '0', fraction = '00'] = amount.replace(/^-/, '').split('.');
  // A template in the same locale gives the currency symbol, the signs and the separators and their order.
  const template = format.formatToParts(negative ? '-1000.00' : '1000.00');
  const group = template.find((part) => part.type === 'group')?.value ?? ',';
  const grouped = integer.replace(/\B(?=(\d{3})+$)/g, group);
  let out = '';
  let integerWritten = false;
  for (const part of template) {
    if (part.type === 'integer' || part.type === 'group') {
      if (!integerWritten) out += grouped;
      integerWritten = true;
    } else if (part.type === 'fraction') {
      out += fraction;
    } else {
      out += part.value;
    }
  }
  return out;
}

/** Maps a locale's digits (for example Arabic-Indic) back to 0-9, so the exactness check works in any locale. */
function toAsciiDigits(text: string, format: Intl.NumberFormat): string {
  const plain = new Intl.NumberFormat(format.resolvedOptions().locale, { useGrouping: false });
  const map = new Map<string, string>();
  for (let digit = 0; digit <= 9; digit++) map.set(plain.format(digit), String(digit));
  return [...text].map((char) => map.get(char) ?? char).join('');
}

function notAStringMessage(amount: unknown): string {
  if (typeof amount === 'number') {
    return `amounts are decimal strings like "12.50", never numbers (floats lose centavos): got the number ${amount}; pass the platform's string as received, or build one with fromCentavos`;
  }
  if (typeof amount === 'bigint') {
    return `amounts are decimal strings like "12.50": got the bigint ${amount}n; if it counts centavos you already have them (fromCentavos formats it)`;
  }
  return `amounts are decimal strings like "12.50": got ${describe(amount)}`;
}

function badLayoutMessage(amount: string, options: ToCentavosOptions): string {
  const shown = quote(amount);
  if (amount.trim() !== amount) return `amount ${shown} has surrounding whitespace: trim it first`;
  if (/^-?\d{1,3}(,\d{3})+(\.\d+)?$/.test(amount))
    return `amount ${shown} has thousands separators: send digits only, like "1234.56"`;
  if (/^-?\d+,\d{1,2}$/.test(amount)) return `amount ${shown} uses a decimal comma: use a dot, like "12.50"`;
  if (/^-?\d+\.\d{3,}$/.test(amount))
    return `amount ${shown} has more than two decimals: a centavo is the smallest unit; round it explicitly before converting`;
  if (!options.lenient && /^-?\d+(\.\d)?$/.test(amount)) {
    return `amount ${shown} is not in the platform's layout: exactly two decimals, like "12.50"; pass { lenient: true } to accept "12" or "12.5"`;
  }
  return `amount ${shown} is not a decimal amount: expected digits, a dot and two decimals, like "1234.56"`;
}

function describe(value: unknown): string {
  if (typeof value === 'number') return `the number ${value}`;
  if (typeof value === 'string') return `the string ${quote(value)}`;
  if (typeof value === 'bigint') return `the bigint ${value}n`;
  if (value === null) return 'null';
  return `a value of type ${typeof value}`;
}

function quote(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}
