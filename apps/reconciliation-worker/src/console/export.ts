// CSV and JSON of any list the console shows: the same rows, the same filters.
export function toCsv(rows: ReadonlyArray<Record<string, unknown>>): string {
  if (rows.length === 0) return '';
  const headers = Object.keys(rows[0]!);
  const cell = (value: unknown): string => {
    const text = value instanceof Date ? value.toISOString() : Array.isArray(value) ? value.join(' ') : value === null || value === undefined ? '' : String(value);
    // Quote when needed; a leading = + - @ is neutralised so a spreadsheet never runs it as a formula.
    const safe = /^[=+\-@]/.test(text) && !/^-?\d+(\.\d+)?$/.test(text) ? `'${text}` : text;
    return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  return `${[headers.join(','), ...rows.map((row) => headers.map((h) => cell(row[h])).join(','))].join('\n')}\n`;
}
