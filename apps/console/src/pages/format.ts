// Figures as people read them. Amounts go through @paykit/domain's formatMoney, the one formatter the
// CLI uses too: "13065.50" → "MXN 13,065.50", on the decimal string, never through a float.
import type { Product } from '@paykit/ledger';
import { formatMoney } from '@paykit/domain';

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

/** What a product is called on a page (its code stays in filters' values, links and exports). */
export const PRODUCT_NAMES: Record<Product, string> = {
  spei_out: 'SPEI transfer out',
  internal_out: 'Internal transfer out',
  penny_validation: 'Penny validation',
  spei_in: 'SPEI transfer in',
  internal_in: 'Internal transfer in',
  reversal: 'Reversal',
  credit_refund: 'Credit refund',
  unrecorded_out: 'Unrecorded transfer out',
  direct_debit_charge: 'Direct debit charge',
};

/** "direct_debit_charge" → "Direct debit charge"; a code without a name as it is. */
export function productName(product: string): string {
  return Object.hasOwn(PRODUCT_NAMES, product) ? PRODUCT_NAMES[product as Product] : product;
}

/** 45 → "45 s", 300 → "5 min", 11100 → "3 h 05 min", 86400 → "24 h", 266400 → "3 d 2 h". */
export function duration(seconds: number): string {
  if (seconds < 60) return `${Math.max(0, Math.floor(seconds))} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${String(minutes % 60).padStart(2, '0')} min`;
  return hours % 24 === 0 ? `${hours / 24} d` : `${Math.floor(hours / 24)} d ${hours % 24} h`;
}
