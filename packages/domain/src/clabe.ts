// CLABE: Mexico's 18-digit interbank account number. 3 digits of bank, 3 of branch (plaza),
// 11 of account and a control digit: weights 3, 7, 1 repeated over the first 17 digits, each
// product taken mod 10, summed; the control digit is (10 - sum mod 10) mod 10.
// Error messages never repeat the number: an account number is personal data that ends up in logs.
import { PaykitError } from './paykit-error.ts';

export type ClabeRule = 'type' | 'length' | 'digits' | 'bank-code' | 'control-digit';

export class ClabeError extends PaykitError {
  override readonly name = 'ClabeError';
  /** Which rule the input broke. */
  readonly rule: ClabeRule;
  constructor(rule: ClabeRule, message: string) {
    super(message);
    this.rule = rule;
  }
}

export interface ParsedClabe {
  bankCode: string;
  branch: string;
  account: string;
  controlDigit: number;
  /** From KNOWN_BANK_CODES; absent for a code the table does not list (which is still valid). */
  bankName?: string;
}

/**
 * A small, deliberately conservative table of well-known bank codes, used only to name the bank.
 * Never used to reject a CLABE: institutions come and go, and an unlisted code can be valid.
 */
export const KNOWN_BANK_CODES: Readonly<Record<string, string>> = Object.freeze({
  '002': 'BANAMEX',
  '006': 'BANCOMEXT',
  '009': 'BANOBRAS',
  '012': 'BBVA MEXICO',
  '014': 'SANTANDER',
  '019': 'BANJERCITO',
  '021': 'HSBC',
  '030': 'BAJIO',
  '036': 'INBURSA',
  '042': 'MIFEL',
  '044': 'SCOTIABANK',
  '058': 'BANREGIO',
  '059': 'INVEX',
  '062': 'AFIRME',
  '072': 'BANORTE',
  '127': 'AZTECA',
  '130': 'COMPARTAMOS',
  '132': 'MULTIVA',
  '133': 'ACTINVER',
  '137': 'BANCOPPEL',
  '646': 'STP',
});

const WEIGHTS = [3, 7, 1] as const;

/** The control digit (0-9) that completes these 17 digits. */
export function clabeControlDigit(first17: string): number {
  if (typeof first17 !== 'string')
    throw new ClabeError('type', `clabeControlDigit takes the first 17 digits as a string, got ${typeof first17}`);
  if (first17.length !== 17)
    throw new ClabeError(
      'length',
      `clabeControlDigit takes exactly the first 17 digits of a CLABE, got ${first17.length} characters`,
    );
  requireDigits(first17);
  let sum = 0;
  for (let index = 0; index < 17; index++) sum += (Number(first17[index]) * WEIGHTS[index % 3]!) % 10;
  return (10 - (sum % 10)) % 10;
}

/** Splits a CLABE into its parts after checking, in order: 18 characters, all digits, a bank code other than 000, the control digit. */
export function parseClabe(clabe: string): ParsedClabe {
  if (typeof clabe !== 'string')
    throw new ClabeError(
      'type',
      `a CLABE is a string of 18 digits, got ${typeof clabe}; a number would lose its leading zeros`,
    );
  if (clabe.length !== 18) {
    const hint = /[\s-]/.test(clabe) ? ' (remove spaces and dashes)' : '';
    throw new ClabeError(
      'length',
      `a CLABE has exactly 18 digits, this one has ${clabe.length} characters${hint}: check that it was copied whole`,
    );
  }
  requireDigits(clabe);
  const bankCode = clabe.slice(0, 3);
  if (bankCode === '000')
    throw new ClabeError(
      'bank-code',
      'a CLABE starts with a 3-digit bank code, and 000 is no bank: check the first three digits',
    );
  const controlDigit = Number(clabe[17]);
  if (clabeControlDigit(clabe.slice(0, 17)) !== controlDigit) {
    throw new ClabeError(
      'control-digit',
      "the CLABE's control digit (the 18th) does not match its first 17 digits: a digit was mistyped or swapped; ask for the CLABE again",
    );
  }
  const parsed: ParsedClabe = { bankCode, branch: clabe.slice(3, 6), account: clabe.slice(6, 17), controlDigit };
  const bankName = KNOWN_BANK_CODES[bankCode];
  if (bankName !== undefined) parsed.bankName = bankName;
  return parsed;
}

/** 18 digits, a bank code that is not 000, and a matching control digit. Never throws. */
export function isValidClabe(clabe: string): boolean {
  try {
    parseClabe(clabe);
    return true;
  } catch {
    return false;
  }
}

function requireDigits(text: string): void {
  const position = text.search(/\D/);
  if (position >= 0)
    throw new ClabeError(
      'digits',
      `a CLABE has digits only, but character ${position + 1} is not a digit: remove spaces, dashes and letters`,
    );
}
