// CSV and JSON of any list the console shows, streamed: rows are written to the response as the
// store reads them (batched keyset reads), never gathered in memory, so an export holds every
// matching row however many there are. CSV is written by csv-stringify; a cell that a spreadsheet
// would run as a formula is neutralised (neutraliseFormula, shared with the CLI's exports).
import { PassThrough, Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { neutraliseFormula } from '@paykit/contracts';
import { stringify } from 'csv-stringify';

export type ExportRow = Record<string, unknown>;

/** An export as it is answered: its headers, the body as a stream, and when every row has been read into it. */
export interface ExportBody {
  headers: Record<string, string>;
  body: Readable;
  /** Resolves once the last row is written to `body`; rejects when reading failed or the client left. */
  done: Promise<void>;
}

function streamed(headers: Record<string, string>, rows: AsyncIterable<ExportRow>, format: Transform): ExportBody {
  const body = new PassThrough();
  return { headers, body, done: pipeline(Readable.from(rows), format, body) };
}

/** `rows` as `<name>.csv` with `columns` as its header (written even when no row matches). */
export function csvBody(name: string, columns: readonly string[], rows: AsyncIterable<ExportRow>): ExportBody {
  // A cell as text: dates ISO 8601, lists space-separated, objects as JSON, formulas neutralised.
  const csv = stringify({
    header: true,
    columns: [...columns],
    record_delimiter: 'unix',
    cast: {
      string: neutraliseFormula,
      date: (value) => value.toISOString(),
      boolean: (value) => String(value),
      object: (value) => neutraliseFormula(Array.isArray(value) ? value.join(' ') : JSON.stringify(value)),
    },
  });
  const headers = {
    'content-type': 'text/csv; charset=utf-8',
    'cache-control': 'no-store',
    'content-disposition': `attachment; filename="${name}.csv"`,
  };
  return streamed(headers, rows, csv);
}

/** `rows` as a JSON array, one object per line. */
export function jsonBody(rows: AsyncIterable<ExportRow>): ExportBody {
  let first = true;
  const json = new Transform({
    writableObjectMode: true,
    transform(row: ExportRow, _encoding, done) {
      const text = `${first ? '[\n' : ',\n'}${JSON.stringify(row)}`;
      first = false;
      done(null, text);
    },
    flush(done) {
      done(null, first ? '[]\n' : '\n]\n');
    },
  });
  return streamed({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }, rows, json);
}

/** Maps each row of an async iterable. */
export async function* mapRows<T>(rows: AsyncIterable<T>, map: (row: T) => ExportRow): AsyncGenerator<ExportRow> {
  for await (const row of rows) yield map(row);
}

/** An array as an async iterable (for the small aggregate exports). */
export async function* fromArray(rows: readonly ExportRow[]): AsyncGenerator<ExportRow> {
  yield* rows;
}
