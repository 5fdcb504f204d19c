// Card data and known secrets in what a log, an error or a drift report may show: a card number
// keeps its last 4 digits, a security code disappears, a client's own secrets are scrubbed by value.
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { isCardCodeField, isCardNumberField, maskCardNumber, maskCardNumbersIn } from '@paykit/domain';
import { driftReports } from '../src/core/drift.ts';
import { apiErrorFrom } from '../src/internal/api-error-from.ts';
import { sanitizeCause } from '../src/internal/sanitize-cause.ts';
import { scrubbingLogger, type LogEntry } from '../src/core/logger.ts';
import { redactBody, redactHeaders, redactUrl, scrubSecrets, scrubValue, collectSecrets } from '../src/core/redact.ts';

const PAN = '4111111111111111';
const PAN_SPACED = '4111 1111 1111 1111';
const AMEX = '378282246310005';
// A valid CLABE that also passes the Luhn check: shown in full all the same.
const CLABE = '002180000000000164';

describe('card numbers and security codes', () => {
  it('recognises card fields by name in any casing', () => {
    for (const name of ['card_number', 'cardNumber', 'Card-Number', 'debit_card_number', 'pan'])
      expect(isCardNumberField(name)).toBe(true);
    for (const name of ['cvv', 'CVV2', 'cvc', 'security_code', 'card_security_code'])
      expect(isCardCodeField(name)).toBe(true);
    for (const name of ['card', 'bank', 'clabe', 'panel', 'account_number']) {
      expect(isCardNumberField(name)).toBe(false);
      expect(isCardCodeField(name)).toBe(false);
    }
  });

  it('masks a card number to its last 4 digits', () => {
    expect(maskCardNumber(PAN)).toBe('************1111');
    expect(maskCardNumber(PAN_SPACED)).toBe('************1111');
    expect(maskCardNumber('1234')).toBe('[card]');
  });

  it('masks Luhn-valid card numbers in text, leaves CLABEs, ids, amounts and non-Luhn digits alone', () => {
    expect(maskCardNumbersIn(`card ${PAN} declined`)).toBe('card ************1111 declined');
    expect(maskCardNumbersIn(`card ${PAN_SPACED}.`)).toBe('card ************1111.');
    expect(maskCardNumbersIn(`amex ${AMEX}`)).toBe('amex ***********0005');
    expect(maskCardNumbersIn(`clabe ${CLABE}`)).toBe(`clabe ${CLABE}`);
    expect(maskCardNumbersIn('reference 1234567 amount 150.00 at 2026-05-07T10:00:00Z')).toBe(
      'reference 1234567 amount 150.00 at 2026-05-07T10:00:00Z',
    );
    expect(maskCardNumbersIn('4111111111111112')).toBe('4111111111111112');
    // Digits inside a UUID, a decimal or a longer run are not a card number; nor is an id's run
    // that no card brand starts with (a SPEI tracking key's date and counter).
    for (const text of [
      '11111111-1111-4111-8111-111111111111',
      'PK2026112000000001',
      'MBAN01002511210000000012',
      '0.4111111111111111',
      '4111111111111111.25',
      '94111111111111111111',
    ]) {
      expect(maskCardNumbersIn(text)).toBe(text);
    }
  });

  it('masks a card number glued to a word or an identifier, on either side', () => {
    expect(maskCardNumbersIn(`card${PAN}`)).toBe('card************1111');
    expect(maskCardNumbersIn(`tx_${PAN}`)).toBe('tx_************1111');
    expect(maskCardNumbersIn(`${PAN}exp1226`)).toBe('************1111exp1226');
    expect(maskCardNumbersIn('MC2223000048400011')).toBe('MC************0011');
    // Luhn still decides: a run a brand starts with but that fails the check is an id.
    expect(maskCardNumbersIn('tx_4111111111111112')).toBe('tx_4111111111111112');
  });

  it('redacts a body: card_number masked, cvv removed, a PAN in any string masked, secrets redacted', () => {
    const body = {
      customer_id: 'c1',
      mx_direct_debit_card: { card_number: PAN, cvv: '123', bank: 'mx_bbva' },
      cardNumber: 4111111111111111,
      note: `charge to ${PAN_SPACED}`,
      client_secret: 'cs_live_abcdefghijklmnop',
      clabe: CLABE,
    };
    const out = redactBody(body);
    expect(out).toEqual({
      customer_id: 'c1',
      mx_direct_debit_card: { card_number: '************1111', bank: 'mx_bbva' },
      cardNumber: '************1111',
      note: 'charge to ************1111',
      client_secret: '[redacted]',
      clabe: CLABE,
    });
    expect(JSON.stringify(out)).not.toContain('123"');
  });

  it('redacts the input a 422 echoes for the field its loc names', () => {
    const body = {
      detail: [
        { loc: ['body', 'card_number'], msg: 'not a valid card', type: 'value_error', input: '4111111111111113' },
        { loc: ['body', 'cvv'], msg: 'must be 3 digits', type: 'value_error', input: '1234' },
        { loc: ['body', 'api_key'], msg: 'unknown', type: 'value_error', input: 'k_live_0123456789' },
        { loc: ['body', 'amount'], msg: 'must be positive', type: 'value_error', input: -1 },
      ],
    };
    expect(redactBody(body)).toEqual({
      detail: [
        { loc: ['body', 'card_number'], msg: 'not a valid card', type: 'value_error', input: '************1113' },
        { loc: ['body', 'cvv'], msg: 'must be 3 digits', type: 'value_error' },
        { loc: ['body', 'api_key'], msg: 'unknown', type: 'value_error', input: '[redacted]' },
        { loc: ['body', 'amount'], msg: 'must be positive', type: 'value_error', input: -1 },
      ],
    });
  });

  it('masks card numbers in headers and URLs; a cvv query parameter is dropped', () => {
    expect(redactHeaders({ 'x-note': `pan ${PAN}` })).toEqual({ 'x-note': 'pan ************1111' });
    expect(redactUrl(`https://h/x?card_number=5500000000000004&cvv=123&limit=5`)).toBe(
      'https://h/x?card_number=************0004&limit=5',
    );
    expect(redactUrl(`https://h/cards/${PAN}`)).toBe('https://h/cards/************1111');
  });

  it('collects a request card number as a secret, and scrubs it (masked) even when it fails Luhn', () => {
    const secrets = collectSecrets({}, { card_number: '4000 0000 0000 0001', cvv: '123' });
    expect(secrets).toEqual(['4000 0000 0000 0001']);
    expect(scrubSecrets('card 4000 0000 0000 0001 refused', secrets)).toBe('card ************0001 refused');
  });
});

describe('errors, causes and drift reports', () => {
  it('an API error quoting the card number and the client secret keeps neither, in message, body, detail or JSON', () => {
    const secret = 'cs_sandbox_0123456789abcdef';
    const response = new Response(null, { status: 422, headers: { 'content-type': 'application/json' } });
    const body = {
      detail: [
        {
          loc: ['body', 'card_number'],
          msg: `card ${PAN} is not accepted with ${secret}`,
          type: 'value_error',
          input: PAN,
        },
      ],
    };
    const error = apiErrorFrom(response, JSON.stringify(body), {
      product: 'direct-debit',
      operation: 'createCharge',
      requestId: 'r1',
      secrets: [secret],
    });
    const everything = [
      error.message,
      JSON.stringify(error.body),
      JSON.stringify(error.detail),
      JSON.stringify(error),
      String(error),
    ].join('\n');
    expect(everything).not.toContain(PAN);
    expect(everything).not.toContain(secret);
    expect(error.message).toContain('************1111');
    expect(error.message).toContain('fix the fields listed in detail');
  });

  it('a 400 whose message quotes the client secret is scrubbed by value', () => {
    const secret = 'cs_sandbox_secret_value_42';
    const response = new Response(null, { status: 400 });
    const error = apiErrorFrom(
      response,
      { message: `client_secret ${secret} does not match` },
      { product: 'core', operation: 'createCredentialToken', requestId: 'r2', secrets: [secret] },
    );
    expect(error.message).toBe(
      'core createCredentialToken: HTTP 400: client_secret [redacted] does not match — fix the request: the fields named above do not meet the spec or the platform rejected them',
    );
    expect(JSON.stringify(error.body)).not.toContain(secret);
  });

  it('a cause quoting a card number keeps only its last 4 digits', () => {
    const cause = sanitizeCause(
      new Error(`socket closed while sending ${PAN}`, { cause: new Error(`inner ${PAN_SPACED}`) }),
    );
    expect(cause.message).not.toMatch(/4111 ?1111 ?1111 ?1111/);
    expect(cause.message).toContain('************1111');
  });

  it('drift reports describe card fields without their digits', () => {
    const schema = z.object({ card_number: z.string().max(4), cvv: z.number() });
    const reports = driftReports(
      schema,
      { card_number: PAN, cvv: '123' },
      { product: 'direct-debit', operation: 'listInstruments' },
    );
    expect(reports.map((r) => r.seen)).toEqual(['string', 'string']);
    expect(JSON.stringify(reports)).not.toContain('4111');
  });
});

describe('scrubbingLogger', () => {
  it('scrubs the client’s own secrets from every part of an entry, asking for them per entry', () => {
    const entries: LogEntry[] = [];
    let token = 'tok_first_0123456789';
    const logger = scrubbingLogger(
      (entry) => entries.push(entry),
      () => ['ak_live_0123456789', undefined, token],
    );
    const entry = (text: string): LogEntry => ({
      event: 'response',
      product: 'core',
      method: 'POST',
      url: `https://h/x?q=${text}`,
      requestId: 'r',
      attempt: 1,
      headers: { 'x-echo': text },
      body: { message: `echo ${text}`, nested: [text] },
      error: `failed: ${text}`,
    });
    logger(entry('ak_live_0123456789'));
    logger(entry('tok_first_0123456789'));
    token = 'tok_second_0123456789';
    logger(entry('tok_second_0123456789'));
    const text = JSON.stringify(entries);
    expect(entries).toHaveLength(3);
    expect(text).not.toContain('ak_live_0123456789');
    expect(text).not.toContain('tok_first_0123456789');
    expect(text).not.toContain('tok_second_0123456789');
    expect(scrubValue(entries[0]?.body)).toEqual({ message: 'echo [redacted]', nested: ['[redacted]'] });
  });
});
