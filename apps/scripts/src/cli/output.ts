// What a command prints: a readable table or key/value list by default, JSON with --json. All of
// it passes through the secret mask, and secret-looking fields are redacted before that.
import { redactBody } from '@paykit/runtime';
import { formatMoney } from '@paykit/domain';
import { maskKnown } from './secrets.ts';

export interface OutputOptions {
  json: boolean;
}

export class Output {
  readonly json: boolean;
  constructor(options: OutputOptions) {
    this.json = options.json;
  }

  /** The command's result: JSON with --json, else a table (arrays of objects) or key: value lines. */
  result(value: unknown, columns?: string[]): void {
    const safe = redactBody(value);
    if (this.json) {
      process.stdout.write(`${maskKnown(JSON.stringify(safe, null, 2))}\n`);
      return;
    }
    process.stdout.write(`${maskKnown(render(safe, columns))}\n`);
  }

  /** A note for people (stderr, so stdout stays the result); silent with --json. */
  note(text: string): void {
    if (!this.json) process.stderr.write(`${maskKnown(text)}\n`);
  }

  /** A line for people and scripts alike (stderr, also with --json): "more: …". */
  info(text: string): void {
    process.stderr.write(`${maskKnown(text)}\n`);
  }

  warn(text: string): void {
    process.stderr.write(`${maskKnown(`warning: ${text}`)}\n`);
  }
}

/** An amount field (amount, totalAmount, amount_due…) in human output: "MXN 13,065.50"; JSON keeps the raw value. */
const AMOUNT_FIELD = /(^amount|amount$)/i;

function money(key: string, value: unknown, row: Record<string, unknown>): string | undefined {
  if (!AMOUNT_FIELD.test(key)) return undefined;
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== 'string' || !/^-?\d+(\.\d+)?$/.test(text)) return undefined;
  const currency = typeof row.currency === 'string' && /^[A-Za-z]{3}$/.test(row.currency) ? row.currency : 'MXN';
  return formatMoney(text, currency);
}

function cell(value: unknown, key?: string, row?: Record<string, unknown>): string {
  if (key !== undefined && row !== undefined) {
    const amount = money(key, value, row);
    if (amount !== undefined) return amount;
  }
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function render(value: unknown, columns?: string[]): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '(none)';
    const rows: Record<string, unknown>[] = value.map((item: unknown) =>
      item !== null && typeof item === 'object' ? (item as Record<string, unknown>) : { value: item },
    );
    const keys = columns ?? [...new Set(rows.flatMap((row) => Object.keys(row)))];
    const table = [keys, ...rows.map((row) => keys.map((key) => cell(row[key], key, row).slice(0, 60)))];
    const widths = keys.map((_, i) => Math.max(...table.map((line) => line[i]!.length)));
    return table
      .map((line) =>
        line
          .map((text, i) => text.padEnd(widths[i]!))
          .join('  ')
          .trimEnd(),
      )
      .join('\n');
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    const width = Math.max(0, ...entries.map(([key]) => key.length));
    return entries
      .map(([key, item]) => `${key.padEnd(width)}  ${cell(item, key, value as Record<string, unknown>)}`)
      .join('\n');
  }
  return cell(value);
}
