// Card numbers (PANs): 12 to 19 digits with a Luhn check digit. Spaces and dashes, as people type
// them, are ignored. Nothing here throws or echoes the number: a PAN must not reach a log.

/** 12-19 digits once spaces and dashes are removed, with a valid Luhn check digit. */
export function isValidCardNumber(number: string): boolean {
  if (typeof number !== 'string') return false;
  const digits = number.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(digits)) return false;
  return luhnSum(digits) % 10 === 0;
}

/** The Luhn check digit that completes `partial` (digits only, without the check digit). */
export function luhnCheckDigit(partial: string): number {
  if (typeof partial !== 'string' || !/^\d+$/.test(partial)) {
    throw new TypeError('luhnCheckDigit takes the digits before the check digit, as a string of digits only');
  }
  return (10 - (luhnSum(`${partial}0`) % 10)) % 10;
}

/** Doubles every second digit counting from the rightmost (the check digit is not doubled). */
function luhnSum(digits: string): number {
  let sum = 0;
  for (let index = digits.length - 1, double = false; index >= 0; index--, double = !double) {
    let digit = digits.charCodeAt(index) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum;
}
