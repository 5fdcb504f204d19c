// Card data in logs and errors: a card number (PAN) is shown as its last 4 digits only, a card
// security code (CVV) not at all. Fields are recognised by name; a PAN anywhere else (a message
// quoting it, a 422 `input` echoing it) by shape: 13 to 19 digits passing the Luhn check.
import { isValidCardNumber } from './card.ts';
import { isValidClabe } from './clabe.ts';

/** "card_number", "cardNumber", "Card-Number" all normalise to "cardnumber". */
function normalise(name: string): string {
  return name.toLowerCase().replace(/[-_\s]/g, '');
}

const CARD_NUMBER_FIELDS = new Set(['pan', 'primaryaccountnumber', 'cardnumber', 'ccnumber', 'cardno', 'cardpan']);
// card_number, debit_card_number, credit_card_number, mx_card_number…
const CARD_NUMBER_PATTERN = /cardnumber$/;
const CARD_CODE_FIELDS = new Set([
  'cvv',
  'cvv2',
  'cvc',
  'cvc2',
  'cid',
  'csc',
  'securitycode',
  'cardsecuritycode',
  'cardverificationvalue',
  'cardverificationcode',
]);
const CARD_CODE_PATTERN = /(cvv2?|cvc2?|securitycode)$/;

/** Whether a field holds a card number (card_number, cardNumber, pan…). */
export function isCardNumberField(name: string): boolean {
  const n = normalise(name);
  return CARD_NUMBER_FIELDS.has(n) || CARD_NUMBER_PATTERN.test(n);
}

/** Whether a field holds a card security code (cvv, cvc, security_code…): never shown, not even in part. */
export function isCardCodeField(name: string): boolean {
  const n = normalise(name);
  return CARD_CODE_FIELDS.has(n) || CARD_CODE_PATTERN.test(n);
}

/** "************1111": the last 4 digits of a card number; "[card]" when it has fewer than 8 digits (too short to show any). */
export function maskCardNumber(value: string | number): string {
  // Already masked (a log entry redacted twice): unchanged.
  if (typeof value === 'string' && /^\*+\d{4}$/.test(value)) return value;
  const digits = String(value).replace(/\D/g, '');
  if (digits.length < 8) return '[card]';
  return `${'*'.repeat(digits.length - 4)}${digits.slice(-4)}`;
}

// 13-19 digits, optionally grouped by single spaces or dashes as people type them, standing
// alone: not part of a word or identifier (tx_4111…), a UUID (11111111-1111-4111-…), a decimal
// or a longer run. 12-digit numbers are left alone: too many ordinary identifiers (phone
// numbers) have 12 digits.
const PAN_SHAPE = /(?<![\w*.-])\d(?:[ -]?\d){12,18}(?![\w-]|\.\d)/g;

/**
 * `text` with every card number in it masked to its last 4 digits. A run of digits counts as a
 * card number when it passes the Luhn check; an 18-digit valid CLABE (a bank account, shown in
 * full everywhere) does not.
 */
export function maskCardNumbersIn(text: string): string {
  if (!/\d{4}/.test(text)) return text;
  return text.replace(PAN_SHAPE, (match) => {
    const digits = match.replace(/[ -]/g, '');
    if (!isValidCardNumber(digits)) return match;
    if (digits.length === 18 && isValidClabe(digits)) return match;
    return maskCardNumber(digits);
  });
}

/** Whether a secret value is a card number (digits, spaces and dashes, 12 or more digits): scrubbed as a mask, not "[redacted]". */
export function looksLikeCardNumberValue(value: string): boolean {
  return /^[\d\s-]+$/.test(value) && value.replace(/\D/g, '').length >= 12;
}
