// Card data in logs, errors, the CLI and the console: a card number (PAN) is shown as its last 4
// digits only, a card security code (CVV) not at all. Fields are recognised by name; a PAN
// anywhere else (a message quoting it, a 422 `input` echoing it, a field named for something
// else, a JSON number) by shape: 13 to 19 digits passing the Luhn check, alone or grouped.
import { isValidCardNumber } from './card.ts';
import { isValidClabe } from './clabe.ts';

/** "card_number", "cardNumber", "Card-Number", "CARD.NUMBER" all normalise to "cardnumber". */
function normalise(name: string): string {
  return name.toLowerCase().replace(/[-_.\s]/g, '');
}

const CARD_NUMBER_FIELDS = new Set(['pan', 'primaryaccountnumber', 'cardnumber', 'ccnumber', 'cardno', 'cardpan']);
// card_number, debit_card_number, credit_card_number, mx_card_number…
const CARD_NUMBER_PATTERN = /cardnumber$/;
const CARD_CODE_FIELDS = new Set(['cid', 'csc', 'csccode', 'ccv', 'cardccv', 'cardcode', 'cardcsc', 'cardcid']);
// cvv, CVV2, cvv_code, cvvNumber, cvc, card_cvn, cv2, security_code, card_verification(_value)…:
// these stems name nothing but a card's security code, wherever they stand in the name.
const CARD_CODE_PATTERN = /cvv|cvc|cvn|cvd|cv2|securitycode|cardverification|verificationvalue/;
// An object that holds a card ("card", "mx_direct_debit_card", "cardDetails"), or a card's
// "security" object: its bare `code` is the security code.
const CARD_PARENT_PATTERN = /card|^security$/;

/** Whether a field holds a card number (card_number, cardNumber, pan…). */
export function isCardNumberField(name: string): boolean {
  const n = normalise(name);
  return CARD_NUMBER_FIELDS.has(n) || CARD_NUMBER_PATTERN.test(n);
}

/**
 * Whether a field holds a card security code (cvv, cvc, cvv_code, cvvNumber, card_cvn, cv2,
 * security_code, card_verification…, and `code` inside an object named like a card): never shown,
 * not even in part. `parent` is the name of the object holding the field, when known.
 */
export function isCardCodeField(name: string, parent?: string): boolean {
  const n = normalise(name);
  if (CARD_CODE_FIELDS.has(n) || CARD_CODE_PATTERN.test(n)) return true;
  return n === 'code' && parent !== undefined && CARD_PARENT_PATTERN.test(normalise(parent));
}

/** "************1111": the last 4 digits of a card number; "[card]" when it has fewer than 8 digits (too short to show any). */
export function maskCardNumber(value: string | number): string {
  // Already masked (a log entry redacted twice): unchanged.
  if (typeof value === 'string' && /^\*+\d{4}$/.test(value)) return value;
  const digits = String(value).replace(/\D/g, '');
  if (digits.length < 8) return '[card]';
  return `${'*'.repeat(digits.length - 4)}${digits.slice(-4)}`;
}

// 13-19 digits, optionally grouped by up to two spaces, tabs, dashes, underscores or slashes as
// people type them (4111 1111-1111_1111), standing alone or after a word and a dash (ref-4111…):
// not inside a UUID (11111111-1111-4111-…), a decimal or a longer run. 12-digit numbers are left
// alone: too many ordinary identifiers (phone numbers) have 12 digits.
const PAN_SHAPE = /(?<![\w*.]|\d[-_ \t/]{1,2})\d(?:[ \t_/-]{0,2}\d){12,18}(?![\w-]|\.\d|[ \t_/-]{1,2}\d)/g;
// Grouped by dots, alone or mixed with the separators above (4111.1111.1111.1111,
// 4111.1111 1111-1111): groups of 3 to 6 digits, so that a decimal (1717171717.123456) or a
// version (1.2.3) is not one.
const DOTTED_PAN_SHAPE =
  /(?<![\w*.-])\d{3,6}(?:[ \t_/-]{0,2}\.[ \t_/-]{0,2}\d{3,6}|[ \t_/-]{1,2}\d{3,6}){2,5}(?![\w-]|\.\d)/g;
// Glued to a word or an identifier (card4111…, tx_4111…, 4111…exp1226): 13 to 19 digits in one run
// with a letter or an underscore on either side. Only a run that starts as a card brand's numbers
// do (GLUED_BRAND) counts, so that an id's digits (a SPEI tracking key's date and counter) stay.
const GLUED_PAN_SHAPE = /(?<=[A-Za-z_])\d{13,19}(?![\d*]|\.\d)|(?<![\d*.])\d{13,19}(?=[A-Za-z_])/g;
// Visa 4; Mastercard 51-55 and 2221-2720; Amex 34, 37; Diners 30, 36, 38, 39; JCB 35;
// Discover 6011, 644-649, 65; UnionPay 62; Maestro 50, 56-69.
const GLUED_BRAND = /^(?:4|5\d|2(?:22[1-9]|2[3-9]\d|[3-6]\d\d|7[01]\d|720)|3[0456789]|6)/;

/**
 * Whether a run of 13 to 19 digits is a card number: the Luhn check passes; it is not an 18-digit
 * valid CLABE (a bank account, shown in full everywhere); and at 13 digits it starts with 4 (only
 * Visa issued 13-digit cards; a millisecond timestamp such as 1764288000000 is not one).
 */
export function isCardNumberDigits(digits: string): boolean {
  if (!/^\d{13,19}$/.test(digits) || !isValidCardNumber(digits)) return false;
  if (digits.length === 18 && isValidClabe(digits)) return false;
  return digits.length !== 13 || digits.startsWith('4');
}

/**
 * `text` with every card number in it masked to its last 4 digits: 13 to 19 digits (fullwidth ones
 * too), alone or grouped as PAN_SHAPE and DOTTED_PAN_SHAPE say, or glued to a word as
 * GLUED_PAN_SHAPE says, that pass isCardNumberDigits.
 */
export function maskCardNumbersIn(text: string): string {
  // Fullwidth digits (４１１１…) are read as the digits they are.
  const ascii = /[０-９]/.test(text)
    ? text.replace(/[０-９]/g, (digit) => String.fromCharCode(digit.charCodeAt(0) - 0xff10 + 0x30))
    : text;
  if (!/\d{3}/.test(ascii)) return text;
  const mask = (match: string) => {
    const digits = match.replace(/\D/g, '');
    return isCardNumberDigits(digits) ? maskCardNumber(digits) : match;
  };
  const masked = ascii
    .replace(PAN_SHAPE, mask)
    .replace(DOTTED_PAN_SHAPE, mask)
    .replace(GLUED_PAN_SHAPE, (match) => (GLUED_BRAND.test(match) ? mask(match) : match));
  return masked === ascii ? text : masked;
}

/**
 * A JSON number that is a card number, masked ("************1111"); otherwise the number itself.
 * An integer past 2^53 has already lost its last digits to JSON parsing, so its check digit
 * proves nothing: with 16 to 19 digits it is masked all the same (no amount is that large).
 */
export function maskCardNumberValue(value: number): number | string {
  if (!Number.isInteger(value) || value < 1e12) return value;
  const digits = BigInt(value).toString();
  if (isCardNumberDigits(digits)) return maskCardNumber(digits);
  if (!Number.isSafeInteger(value) && digits.length >= 16 && digits.length <= 19 && !isValidClabe(digits))
    return maskCardNumber(digits);
  return value;
}

/** Whether a secret value is a card number (digits, spaces and dashes, 12 or more digits): scrubbed as a mask, not "[redacted]". */
export function looksLikeCardNumberValue(value: string): boolean {
  return /^[\d\s-]+$/.test(value) && value.replace(/\D/g, '').length >= 12;
}
