// Who owns the account a penny validation reached: the CEP's beneficiary name and RFC against the
// holder we expected. Names are compared normalised — case, accents, punctuation and word order do
// not count ("Pérez López, Juan" is "JUAN LOPEZ PEREZ") — and company suffixes are kept, since
// "ACME SA DE CV" and "ACME SAPI" are different companies.

export type Ownership = 'verified' | 'mismatch' | 'inconclusive';

export interface OwnershipEvidence {
  expected: { name: string | null; rfc: string | null };
  cep: { status: string; name: string | null; rfc: string | null };
  /** The normalised forms that were compared. */
  compared: { expectedName: string | null; cepName: string | null; expectedRfc: string | null; cepRfc: string | null };
  nameMatches: boolean | null;
  rfcMatches: boolean | null;
  /** Why the decision is what it is, for people. */
  note: string;
}

/** Upper case, accents and punctuation removed, words sorted: word order does not count. */
export function normaliseName(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toUpperCase()
    .replace(/[^A-Z0-9Ñ ]+/g, ' ')
    .split(/\s+/)
    .filter((word) => word !== '')
    .sort()
    .join(' ');
}

export function normaliseRfc(rfc: string): string {
  return rfc.toUpperCase().replace(/[^A-Z0-9&Ñ]/g, '');
}

const blank = (value: string | null | undefined): value is null | undefined =>
  value === null || value === undefined || value.trim() === '';

/**
 * verified: the name matches and the RFC matches (or one side has none); mismatch: the name or the
 * RFC disagrees; inconclusive: the CEP lookup failed or is not finished, or there is nothing to compare.
 */
export function decideOwnership(
  expected: { name: string | null; rfc: string | null },
  cep: { status: string; name: string | null; rfc: string | null },
): { ownership: Ownership; evidence: OwnershipEvidence } {
  const compared = {
    expectedName: blank(expected.name) ? null : normaliseName(expected.name),
    cepName: blank(cep.name) ? null : normaliseName(cep.name),
    expectedRfc: blank(expected.rfc) ? null : normaliseRfc(expected.rfc),
    cepRfc: blank(cep.rfc) ? null : normaliseRfc(cep.rfc),
  };
  const nameMatches =
    compared.expectedName === null || compared.cepName === null ? null : compared.expectedName === compared.cepName;
  const rfcMatches =
    compared.expectedRfc === null || compared.cepRfc === null ? null : compared.expectedRfc === compared.cepRfc;
  const evidence = (note: string): OwnershipEvidence => ({ expected, cep, compared, nameMatches, rfcMatches, note });
  if (cep.status !== 'COMPLETED') {
    return {
      ownership: 'inconclusive',
      evidence: evidence(
        cep.status === 'FAILED'
          ? 'the CEP lookup failed: no beneficiary data to compare'
          : `the CEP lookup is ${cep.status}`,
      ),
    };
  }
  if (nameMatches === false || rfcMatches === false) {
    const fields = [nameMatches === false ? 'name' : null, rfcMatches === false ? 'RFC' : null]
      .filter(Boolean)
      .join(' and ');
    return {
      ownership: 'mismatch',
      evidence: evidence(`the beneficiary's ${fields} on the CEP differ from the expected holder's`),
    };
  }
  if (nameMatches === true) {
    return {
      ownership: 'verified',
      evidence: evidence(
        rfcMatches === true ? 'name and RFC match' : 'the name matches; no RFC on one side to compare',
      ),
    };
  }
  if (rfcMatches === true)
    return { ownership: 'verified', evidence: evidence('the RFC matches; no name on one side to compare') };
  return {
    ownership: 'inconclusive',
    evidence: evidence(
      compared.expectedName === null
        ? 'no expected holder was recorded for this validation'
        : 'the CEP carries no beneficiary name or RFC',
    ),
  };
}
