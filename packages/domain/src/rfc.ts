// RFC: Mexico's tax id. A persona moral (company) has 3 letters, a persona física 4, then the
// YYMMDD of incorporation or birth and a 3-character homoclave. Only the shape and the date are
// checked: the homoclave's check character is not part of the platform's rules.
// Input is taken as written (uppercase, no spaces or dashes); normalizeRfc prepares user input.

const MORAL = /^[A-ZÑ&]{3}(\d{2})(\d{2})(\d{2})[A-Z\d]{3}$/u;
const FISICA = /^[A-ZÑ&]{4}(\d{2})(\d{2})(\d{2})[A-Z\d]{3}$/u;

/** 'moral' (12 characters), 'fisica' (13 characters), or undefined when the shape or the date is wrong. */
export function rfcKind(rfc: string): 'moral' | 'fisica' | undefined {
  if (typeof rfc !== 'string') return undefined;
  // "Ñ" may arrive decomposed (N + combining tilde); the pattern expects the single character.
  const text = rfc.normalize('NFC');
  const moral = MORAL.exec(text);
  if (moral) return isValidDate(moral) ? 'moral' : undefined;
  const fisica = FISICA.exec(text);
  if (fisica) return isValidDate(fisica) ? 'fisica' : undefined;
  return undefined;
}

export function isValidRfc(rfc: string): boolean {
  return rfcKind(rfc) !== undefined;
}

/** Trims, uppercases and removes spaces and dashes: " xaxx-010101-000 " → "XAXX010101000". */
export function normalizeRfc(text: string): string {
  return text.normalize('NFC').toUpperCase().replace(/[\s-]/g, '');
}

function isValidDate(match: RegExpExecArray): boolean {
  const yy = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  // The century is not written, so 29 February is accepted whenever YY is a multiple of 4: a leap
  // year in either century, except 1900 (accepted anyway, since "00" may just as well be 2000).
  const february = yy % 4 === 0 ? 29 : 28;
  const days = [31, february, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return day <= days;
}
