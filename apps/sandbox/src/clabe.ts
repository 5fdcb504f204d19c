// CLABE numbers (18 digits: 3 bank, 3 branch (plaza), 11 account, 1 control digit), shared by the
// core service (the private accounts it opens) and direct debit (the instruments it generates).
// The control digit is the one Mexican banks check, so a client's own CLABE validation accepts
// every CLABE the sandbox makes.

const WEIGHTS = [3, 7, 1] as const;

/** The control digit of the first 17 digits: weights 3, 7, 1 repeating, each product mod 10, summed; (10 − sum mod 10) mod 10. */
export function clabeControlDigit(first17: string): number {
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (Number(first17[i]) * WEIGHTS[i % 3]!) % 10;
  return (10 - (sum % 10)) % 10;
}

/** 18 digits whose last is the control digit of the first 17. */
export function isValidClabe(clabe: string): boolean {
  return /^\d{18}$/.test(clabe) && clabeControlDigit(clabe.slice(0, 17)) === Number(clabe[17]);
}

/** The CLABE of a 3-digit bank code, 3-digit branch code and 11-digit account number, control digit appended. */
export function buildClabe(bank: string, branch: string, account: string): string {
  if (!/^\d{3}$/.test(bank) || !/^\d{3}$/.test(branch) || !/^\d{11}$/.test(account)) {
    throw new Error(`A CLABE is built from a 3-digit bank, a 3-digit branch and an 11-digit account (got ${bank}, ${branch}, ${account}).`);
  }
  const first17 = `${bank}${branch}${account}`;
  return `${first17}${clabeControlDigit(first17)}`;
}
