// Amounts as people read them: "MXN 13,065.50". Intl.NumberFormat formats the decimal string as
// given (a string is formatted exactly, never through a float), with a fixed locale so every
// browser and server shows the same text.
const MXN = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'MXN', currencyDisplay: 'code' });
const COUNT = new Intl.NumberFormat('en-US');

type Decimal = `${number}`;

/** "13065.50" → "MXN 13,065.50"; null or "" → "". */
export function money(value: string | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  // A string argument keeps every digit (Intl.NumberFormat v3); the cast is for the type only.
  return MXN.format(value as Decimal as unknown as number).replace(/\u00a0/g, ' ');
}

/** 1234 → "1,234". */
export function count(value: number): string {
  return COUNT.format(value);
}

/** 0.9876 → "98.8%"; null → "—". */
export function percent(value: number | null): string {
  return value === null ? '—' : `${(value * 100).toFixed(1)}%`;
}
