// The one redaction, as a table: every way a card number, a card security code or a secret has
// been seen to slip through (a PAN as a JSON number in a field not named like a card field,
// grouped by dots (alone or mixed), double spaces, tabs, underscores or slashes, after `ref-`, glued
// to a word or an identifier (card4111…, tx_4111…), as an object key, in
// fullwidth digits, codes under `code` inside `card`, cvv_code, cvvNumber, card_cvn, cv2,
// card_verification, values under secretKey, credential, pin) and their case and separator
// variants, each planted in a body and checked through every surface that shows one: redactBody
// (the console's event page, the CLI's output), scrubValue (the clients' log entries) and an
// ApiError's body (error messages). Ordinary data (a CLABE, amounts, timestamps, ids, a
// top-level gRPC `code`) must come out unchanged.
import { describe, expect, it } from 'vitest';
import { luhnCheckDigit } from '@paykit/domain';
import { apiErrorFrom } from '../src/internal/api-error-from.ts';
import { redactBody, redactLogFields, scrubValue } from '../src/core/redact.ts';

const PAN = '4111111111111111';
const withCheckDigit = (partial: string) => `${partial}${luhnCheckDigit(partial)}`;
const PAN19 = withCheckDigit('422222222222222222');
const PAN13 = withCheckDigit('422222222222');
const CVV = '7391';
const SECRET = 'sk_live_5f4e3d2c1b0a9988';

/** A body that must not show `hidden` (anywhere in its JSON) once redacted. */
interface Leak {
  name: string;
  body: unknown;
  hidden: string;
  /** What the output must still show (the last 4 digits of a PAN, a neighbour field). */
  shown?: string;
}

const cardNumbers: Leak[] = [
  { name: 'card_number string', body: { card_number: PAN }, hidden: PAN, shown: '************1111' },
  { name: 'PAN in a field not named like a card field', body: { reference: PAN }, hidden: PAN, shown: '1111' },
  { name: 'PAN as a JSON number, unrelated field', body: { reference: 4111111111111111 }, hidden: PAN, shown: '1111' },
  { name: 'PAN as a JSON number in a list', body: { refs: [1, 4111111111111111] }, hidden: PAN, shown: '1111' },
  {
    name: 'PAN as a JSON number, deep',
    body: { data: { meta: [{ value: 5555555555554444 }] } },
    hidden: '5555555555554444',
    shown: '4444',
  },
  { name: 'space-grouped PAN', body: { note: '4111 1111 1111 1111' }, hidden: '4111 1111 1111 1111', shown: '1111' },
  { name: 'dash-grouped PAN', body: { note: '4111-1111-1111-1111' }, hidden: '4111-1111-1111-1111', shown: '1111' },
  { name: 'dot-grouped PAN', body: { x: '4111.1111.1111.1111' }, hidden: '4111.1111', shown: '1111' },
  { name: 'dot-grouped PAN in a sentence', body: { msg: 'card 4111.1111.1111.1111 declined' }, hidden: '4111.1111' },
  { name: 'Amex string', body: { x: '378282246310005' }, hidden: '378282246310005', shown: '0005' },
  { name: 'Amex as a JSON number', body: { x: 378282246310005 }, hidden: '378282246310005', shown: '0005' },
  { name: 'Amex 4-6-5 grouped', body: { x: '3782 822463 10005' }, hidden: '822463' },
  { name: '19-digit PAN string', body: { x: PAN19 }, hidden: PAN19 },
  { name: '19-digit PAN as a JSON number (past 2^53)', body: { x: Number(PAN19) }, hidden: PAN19.slice(0, 12) },
  { name: '13-digit Visa', body: { x: PAN13 }, hidden: PAN13 },
  { name: 'PAN under PAN', body: { PAN: PAN }, hidden: PAN },
  { name: 'PAN under Card-Number', body: { 'Card-Number': PAN }, hidden: PAN },
  { name: 'PAN under CARD_NUMBER as a number', body: { CARD_NUMBER: 4111111111111111 }, hidden: PAN },
  { name: 'PAN grouped by two spaces', body: { x: '4111  1111  1111  1111' }, hidden: '4111  1111', shown: '1111' },
  { name: 'PAN grouped by tabs', body: { x: '4111\t1111\t1111\t1111' }, hidden: '4111\t1111', shown: '1111' },
  { name: 'PAN grouped by underscores', body: { x: '4111_1111_1111_1111' }, hidden: '4111_1111', shown: '1111' },
  { name: 'PAN grouped by slashes', body: { x: '4111/1111/1111/1111' }, hidden: '4111/1111', shown: '1111' },
  { name: 'PAN grouped by mixed separators', body: { x: '4111 1111-1111_1111' }, hidden: '4111 1111', shown: '1111' },
  { name: 'PAN after a word and a dash', body: { reference: `ref-${PAN}` }, hidden: PAN, shown: 'ref-' },
  { name: 'PAN glued to a word', body: { note: `card${PAN}` }, hidden: PAN, shown: 'card************1111' },
  { name: 'PAN glued to an identifier', body: { tx: `tx_${PAN}` }, hidden: PAN, shown: 'tx_************1111' },
  { name: 'PAN glued to what follows', body: { note: `${PAN}exp1226` }, hidden: PAN, shown: 'exp1226' },
  {
    name: 'PAN grouped by dots mixed with other separators',
    body: { x: '4111.1111 1111-1111' },
    hidden: '4111.1111',
    shown: '1111',
  },
  { name: 'PAN as an object key', body: { byCard: { [PAN]: 'declined' } }, hidden: PAN, shown: 'declined' },
  {
    name: 'PAN in fullwidth digits',
    body: { x: '４１１１１１１１１１１１１１１１' },
    hidden: '４１１１１１１１',
    shown: '1111',
  },
];

const codeVariants: [string, unknown][] = [
  ['cvv', { cvv: CVV }],
  ['CVV2', { CVV2: CVV }],
  ['cvc', { cvc: CVV }],
  ['CVC-2', { 'CVC-2': CVV }],
  ['cvv_code', { cvv_code: CVV }],
  ['cvvNumber', { cvvNumber: CVV }],
  ['card_cvn', { card_cvn: CVV }],
  ['cv2', { cv2: CVV }],
  ['CV2 as a number', { CV2: Number(CVV) }],
  ['card_verification', { card_verification: CVV }],
  ['cardVerificationValue', { cardVerificationValue: CVV }],
  ['card-verification-code', { 'card-verification-code': CVV }],
  ['security_code', { security_code: CVV }],
  ['SECURITY-CODE', { 'SECURITY-CODE': CVV }],
  ['securityCode as a number', { securityCode: Number(CVV) }],
  ['cid', { cid: CVV }],
  ['csc', { csc: CVV }],
  ['code inside card', { card: { number: 'x', code: CVV } }],
  ['code inside mx_direct_debit_card', { mx_direct_debit_card: { code: Number(CVV) } }],
  ['code inside cardDetails', { cardDetails: { Code: CVV } }],
  ['code inside a list of cards', { cards: [{ code: CVV }, { code: CVV }] }],
  ['ccv', { ccv: CVV }],
  ['csc_code', { csc_code: CVV }],
  ['code inside card.security', { card: { security: { code: CVV } } }],
];

const secretVariants: [string, unknown][] = [
  ['secretKey', { secretKey: SECRET }],
  ['secret_key', { secret_key: SECRET }],
  ['SECRET-KEY', { 'SECRET-KEY': SECRET }],
  ['credential', { credential: SECRET }],
  ['Credential object', { Credential: { id: 'c1', value: SECRET } }],
  ['client_credentials', { client_credentials: SECRET }],
  ['pin', { pin: CVV }],
  ['PIN as a number', { PIN: Number(CVV) }],
  ['pin_code', { pin_code: CVV }],
  ['cardPin', { cardPin: CVV }],
  ['atm-pin', { 'atm-pin': CVV }],
  ['client_secret', { client_secret: SECRET }],
  ['apiKey', { apiKey: SECRET }],
  ['X-API-KEY', { 'X-API-KEY': SECRET }],
  ['access_key', { access_key: SECRET }],
  ['signingKey', { signingKey: SECRET }],
  ['passphrase', { passphrase: SECRET }],
  ['webhook_token', { webhook_token: SECRET }],
  ['private.key', { 'private.key': SECRET }],
  ['cardholder_pin', { cardholder_pin: CVV }],
  ['secretKeyBase64', { secretKeyBase64: SECRET }],
  ['signing_key_hex', { signing_key_hex: SECRET }],
  ['passcode', { passcode: CVV }],
  ['otp', { otp: CVV }],
  ['otp_code', { otp_code: CVV }],
];

const leaks: Leak[] = [
  ...cardNumbers,
  ...codeVariants.map(([name, body]) => ({ name: `security code under ${name}`, body, hidden: CVV })),
  ...secretVariants.map(([name, body]) => ({
    name: `secret under ${name}`,
    body,
    hidden: String(JSON.stringify(body)).includes(SECRET) ? SECRET : CVV,
  })),
];

/** Ordinary data: shown as it is. */
const kept: [string, Record<string, unknown>][] = [
  ['a CLABE that also passes Luhn', { clabe: '002180000000000164', beneficiary_account: '002180000000000164' }],
  ['a CLABE in text', { note: 'paid to 002180000000000164 today' }],
  ['platform CLABEs', { accounts: ['646180000000000012', '012180000045678907'] }],
  ['amounts', { amount: '1500.00', total: 1500, cash: 250, fee: 12.5, big: '123456789012.34' }],
  ['a millisecond timestamp', { at: 1764288000000, text: '1764288000000' }],
  ['a gRPC error code', { code: 9, message: 'API Error' }],
  ['a bank code', { bank: { code: 'mx_bbva' }, status: { code: 'LIQUIDATED' } }],
  [
    'ids',
    { id: '11111111-1111-4111-8111-111111111111', tracking_key: 'PK2026112000000001', tx: 'tx_4111111111111112' },
  ],
  ['a non-Luhn 16-digit number', { n: '4111111111111112', m: 4111111111111112 }],
  ['a phone number and a reference', { phone: '525512345678', numeric_reference: '1234567' }],
  ['a decimal and a version', { ratio: '4111111111111111.25', version: '1.22.333' }],
  ['a Unix time with microseconds', { t: '1717171717.123456' }],
  ['names that only look secret', { shipping: 'x', opinion: 'y', spin: 'z', pinned: true, keys: ['a'], codes: [1] }],
];

/** Every surface that shows a body: the console and the CLI, a client's log entry, an API error. */
const surfaces: [string, (body: unknown) => unknown][] = [
  ['redactBody (console, CLI)', (body) => redactBody(body)],
  ['scrubValue (client logs)', (body) => scrubValue(body, ['some-other-known-secret'])],
  ['redactLogFields (gateway and worker logs)', (body) => redactLogFields({ entry: body }).entry],
  [
    'ApiError body (errors)',
    (body) => apiErrorFrom(new Response(null, { status: 400 }), body, { product: 'core', requestId: 'r' }).body,
  ],
];

describe('one redaction, every variant', () => {
  it('has at least 40 variants that leaked or could leak', () => {
    expect(leaks.length).toBeGreaterThanOrEqual(40);
    expect(new Set(leaks.map((leak) => leak.name)).size).toBe(leaks.length);
  });

  for (const [surface, show] of surfaces) {
    it.each(leaks)(`${surface} hides $name`, ({ body, hidden, shown }) => {
      const out = JSON.stringify(show(body));
      expect(out).not.toContain(hidden);
      if (shown !== undefined) expect(out).toContain(shown);
    });

    it.each(kept)(`${surface} shows %s unchanged`, (_name, body) => {
      expect(show(body)).toEqual(body);
    });
  }

  it('redacts the fields of a log line: an Error stays of its class, message and stack scrubbed; a Date keeps its time', () => {
    const error = Object.assign(new Error(`card ${PAN} declined, cvv_code 123`), { code: 'E_CARD', secretKey: SECRET });
    const out = redactLogFields({
      cvv: '123',
      reference: 4111111111111111,
      at: new Date('2026-11-21T10:00:00Z'),
      err: error,
    });
    expect(out).toMatchObject({ reference: '************1111', at: '2026-11-21T10:00:00.000Z' });
    expect(out).not.toHaveProperty('cvv');
    expect(out.err).toBeInstanceOf(Error);
    expect(out.err).toMatchObject({
      message: 'card ************1111 declined, cvv_code 123',
      code: 'E_CARD',
      secretKey: '[redacted]',
    });
    expect((out.err as Error).stack).not.toContain(PAN);
    const typed = redactLogFields({ err: new TypeError(`bad ${PAN}`) }).err as Error;
    expect(typed).toBeInstanceOf(TypeError);
    expect(typed.name).toBe('TypeError');
    expect(typed.message).toBe('bad ************1111');
  });

  it('masks the PAN to its last 4 digits wherever it stands, and removes a code with its field', () => {
    expect(redactBody({ reference: 4111111111111111, note: '4111.1111.1111.1111', card: { code: 123 } })).toEqual({
      reference: '************1111',
      note: '************1111',
      card: {},
    });
  });
});
