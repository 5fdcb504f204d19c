// CLABE numbers (18 digits: 3 bank, 3 branch (plaza), 11 account, 1 control digit) for the core
// service (the private accounts it opens) and direct debit (the instruments it generates). The
// control digit and validity rules are @paykit/domain's, the same ones every paykit client checks.
import { clabeControlDigit, isValidClabe } from '@paykit/domain';

export { clabeControlDigit, isValidClabe };

/** The CLABE of a 3-digit bank code, 3-digit branch code and 11-digit account number, control digit appended. */
export function buildClabe(bank: string, branch: string, account: string): string {
  if (!/^\d{3}$/.test(bank) || !/^\d{3}$/.test(branch) || !/^\d{11}$/.test(account)) {
    throw new Error(
      `A CLABE is built from a 3-digit bank, a 3-digit branch and an 11-digit account (got ${bank}, ${branch}, ${account}).`,
    );
  }
  const first17 = `${bank}${branch}${account}`;
  return `${first17}${clabeControlDigit(first17)}`;
}
