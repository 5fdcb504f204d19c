// The two documented forms of a charge body, told apart before anything is sent: the customer and
// the instrument inline, or the ids of a stored customer and instrument, never a mix. The amount is
// a JSON number of pesos. No message here ever contains a card number or a CLABE: an identifier
// is named by its last four digits only.
import { RequestValidationError } from '@paykit/runtime';
import type { ChargeCreateRequest } from './generated/types.gen.ts';

type Issue = { path: (string | number)[]; message: string };

/** The last four characters of an identifier, for messages ("…3755"). */
export function lastFour(identifier: string): string {
  return `…${identifier.slice(-4)}`;
}

/** Throws RequestValidationError naming every problem of a charge body; returns it unchanged when it is one of the two forms. */
export function checkChargeBody(body: ChargeCreateRequest): ChargeCreateRequest {
  const record = body as unknown as Record<string, unknown>;
  const issues: Issue[] = [];
  const has = (key: string) => record[key] !== undefined && record[key] !== null;
  const inline = has('inline_instrument') || has('inline_customer');
  const stored = has('customer_id') || has('instrument_id');
  if (inline && stored) {
    issues.push({
      path: [],
      message:
        'a charge is either inline (inline_customer + inline_instrument) or on stored objects (customer_id + instrument_id), not both',
    });
  } else if (inline) {
    for (const key of ['inline_instrument', 'inline_customer'])
      if (!has(key)) issues.push({ path: [key], message: `an inline charge needs ${key} too` });
  } else if (stored) {
    for (const key of ['customer_id', 'instrument_id'])
      if (!has(key)) issues.push({ path: [key], message: `a charge on stored objects needs ${key} too` });
  } else {
    issues.push({
      path: [],
      message: 'name the customer and instrument: inline_customer + inline_instrument, or customer_id + instrument_id',
    });
  }
  const amount = record.amount;
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0) {
    issues.push({
      path: ['amount'],
      message: `the amount is a positive JSON number of pesos (100 or 100.5); got ${typeof amount === 'number' ? String(amount) : `a value of type ${amount === null ? 'null' : typeof amount}`}`,
    });
  } else if (Math.round(amount * 100) / 100 !== amount) {
    issues.push({
      path: ['amount'],
      message: `the amount has more than two decimals (${amount}): send whole centavos`,
    });
  }
  if (typeof record.currency !== 'string' || record.currency.toLowerCase() !== 'mxn') {
    issues.push({ path: ['currency'], message: 'the currency of a direct debit charge is "mxn"' });
  }
  const instrument = record.inline_instrument as Record<string, unknown> | undefined;
  if (instrument && typeof instrument === 'object') {
    const identifier = instrument.identifier;
    if (typeof identifier !== 'string' || !/^\d{16,18}$/.test(identifier)) {
      const shown =
        typeof identifier === 'string'
          ? `${identifier.length} characters ending ${lastFour(identifier)}`
          : `a value of type ${typeof identifier}`;
      issues.push({
        path: ['inline_instrument', 'identifier'],
        message: `the identifier is a CLABE (18 digits) or a card number (16 digits); got ${shown}`,
      });
    }
  }
  if (issues.length > 0) {
    throw new RequestValidationError(
      `createCharge: the charge body is not one the service takes: ${issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ')}.`,
      issues,
    );
  }
  return body;
}
