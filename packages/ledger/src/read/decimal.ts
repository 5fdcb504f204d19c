// Decimal text as the database returns it (numeric::text), read the way every figure is shown:
// two decimals, and sums taken exactly in centavos, never in floating point.

/** numeric text → two decimals ("12" → "12.00", "3.5" → "3.50"). */
export function decimal(value: string): string {
  const [whole = '0', fraction = ''] = value.split('.');
  return `${whole}.${fraction.padEnd(2, '0').slice(0, 2)}`;
}

/** Sums decimal strings exactly, as centavos. */
export function addDecimals(values: readonly string[]): string {
  const centavos = values.reduce((sum, value) => sum + toCentavos(value), 0n);
  return fromCentavos(centavos);
}

function toCentavos(value: string): bigint {
  const [whole = '0', fraction = ''] = decimal(value).replace('-', '').split('.');
  const cents = BigInt(whole) * 100n + BigInt(fraction.padEnd(2, '0').slice(0, 2));
  return value.startsWith('-') ? -cents : cents;
}

function fromCentavos(centavos: bigint): string {
  const sign = centavos < 0n ? '-' : '';
  const abs = centavos < 0n ? -centavos : centavos;
  return `${sign}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}
