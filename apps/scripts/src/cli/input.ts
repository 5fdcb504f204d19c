// Values typed on the command line, checked where the rule is known before anything is sent: a
// value only the server would refuse (an amount with one decimal, a CLABE with a wrong control
// digit) is wrong usage (exit 2) with one line saying what was wrong and what to do.
import { readAmount } from '@paykit/contracts';
import { ClabeError, parseClabe } from '@paykit/domain';
import * as z from 'zod';
import { UsageError } from './errors.ts';
import { shownUrl } from './secrets.ts';

/** Core amounts, by the amount rule (@paykit/contracts' readAmount): pesos as a decimal string with two decimals, above zero. */
export const Amount = z.string().superRefine((value, issue) => {
  const reading = readAmount(value);
  if (!reading.ok) issue.addIssue({ code: 'custom', message: reading.reason });
});

/** Cash amounts: whole pesos (integer MXN). */
export const WholePesos = z
  .string()
  .regex(/^\d{1,15}$/, 'must be whole pesos (cash amounts are integer MXN), e.g. 250')
  .refine((value) => !/^0+$/.test(value), 'must be above 0');

/** An 18-digit CLABE with its control digit; the message never repeats the number. */
export const Clabe = z.string().superRefine((value, issue) => {
  try {
    parseClabe(value);
  } catch (error) {
    if (!(error instanceof ClabeError)) throw error;
    issue.addIssue({ code: 'custom', message: `is not a valid CLABE: ${error.message}` });
  }
});

/** A numeric external reference: at most 7 digits. */
export const Reference = z.string().regex(/^\d{1,7}$/, 'must be numeric, at most 7 digits');

/** A count of 1 or more (page sizes, limits). */
export const Count = z.string().regex(/^[1-9]\d{0,8}$/, 'must be a whole number of 1 or more');

/** A day: YYYY-MM-DD. */
export const Day = z.iso.date('must be a day, YYYY-MM-DD');

/** Account data: a message says what is wrong with it without repeating it. */
const NOT_REPEATED = new Set<unknown>([Clabe]);

/** `value` checked against `schema`, or a UsageError naming the flag: "--amount must be …, got "12.5"". */
export function flag<T>(schema: z.ZodType<T>, name: string, value: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const message = parsed.error.issues[0]?.message ?? 'is not valid';
  // A URL's user:password is a credential: the value is shown without it.
  const safe = shownUrl(value);
  const shown = NOT_REPEATED.has(schema) ? '' : ` (got "${safe.length > 40 ? `${safe.slice(0, 40)}…` : safe}")`;
  throw new UsageError(`${name} ${message}${shown}.`);
}

/** Like flag(), for an option that may be absent. */
export function optionalFlag<T>(schema: z.ZodType<T>, name: string, value: string | undefined): T | undefined {
  return value === undefined ? undefined : flag(schema, name, value);
}
