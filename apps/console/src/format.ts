// Figures as people read them. Amounts go through the runtime's formatMoney, the one formatter the
// CLI uses too: "13065.50" → "MXN 13,065.50", on the decimal string, never through a float.
import { formatMoney } from '@paykit/runtime';

const COUNT = new Intl.NumberFormat('en-US');

/** "13065.50" → "MXN 13,065.50"; null or "" → "". */
export function money(value: string | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  return formatMoney(value, 'MXN');
}

/** 1234 → "1,234". */
export function count(value: number): string {
  return COUNT.format(value);
}

/** 0.9876 → "98.8%"; null → "—". */
export function percent(value: number | null): string {
  return value === null ? '—' : `${(value * 100).toFixed(1)}%`;
}
