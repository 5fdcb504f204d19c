// The reconciliation ledger (@paykit/ledger, on the store's database): apply waiting events, read
// the summary, register what we expect to receive, and import the platform's report files.
import { readFileSync } from 'node:fs';
import { CsvError, parse } from 'csv-parse/sync';
import path from 'node:path';
import { ReportFormatError, readAmount } from '@paykit/contracts';
import type * as Ledger from '@paykit/ledger';
import type { NewReceivable, SummaryRow } from '@paykit/ledger';
import type * as Store from '@paykit/store';
import type { Context } from '../cli/context.ts';
import { CliError, UsageError } from '../cli/errors.ts';
import { Amount, Clabe, Day, Reference, flag, optionalFlag } from '../cli/input.ts';
import { progress } from '../cli/progress.ts';

type Db = Awaited<ReturnType<Context['database']>>;

/** withDatabase with the ledger's functions loaded beside the store's. */
export async function withLedger<T>(ctx: Context, run: (db: Db, ledger: typeof Ledger) => Promise<T>): Promise<T> {
  const ledger = await import('@paykit/ledger');
  return withDatabase(ctx, (db) => run(db, ledger));
}

export async function withDatabase<T>(ctx: Context, run: (db: Db, store: typeof Store) => Promise<T>): Promise<T> {
  const store = await import('@paykit/store');
  let db: Db;
  try {
    db = await ctx.database();
  } catch (error) {
    // A secret the profile names but the environment lacks is wrong usage (exit 2), not a store failure.
    if (error instanceof UsageError) throw error;
    // Only a PGlite folder can be held by `pnpm start`; a server's error already says what to check.
    const hint =
      ctx.databaseUrl() === undefined
        ? 'With `pnpm start` running, its PGlite store is in use: export the DATABASE_URL it prints (its store served over TCP), or read the console.'
        : undefined;
    throw new CliError(`Cannot open the store: ${(error as Error).message}`, hint);
  }
  try {
    return await run(db, store);
  } catch (error) {
    if (error instanceof store.StoreInputError) throw new UsageError(error.message);
    throw error;
  } finally {
    await db.close();
  }
}

export async function reconcileRun(ctx: Context, options: { once?: boolean }): Promise<void> {
  if (!options.once)
    throw new UsageError(
      'reconcile run needs --once here; the continuous worker is `pnpm --filter @paykit/reconciliation-worker start`.',
    );
  await withLedger(ctx, async (db, ledger) => {
    const result = await ledger.reconcileOnce(db);
    ctx.out.note(`applied ${result.applied} events in ${result.batches} batches; parked ${result.parked}`);
    ctx.out.result(
      summaryRows(await ledger.reconciliationSummary(db, { from: '2000-01-01', to: '2100-01-01' }), ctx.out.json),
    );
  });
}

export async function reconcileSummary(ctx: Context, options: { from?: string; to?: string }): Promise<void> {
  optionalFlag(Day, '--from', options.from);
  optionalFlag(Day, '--to', options.to);
  await withLedger(ctx, async (db, ledger) => {
    ctx.out.result(
      summaryRows(
        await ledger.reconciliationSummary(db, { from: options.from ?? '2000-01-01', to: options.to ?? '2100-01-01' }),
        ctx.out.json,
      ),
    );
  });
}

function summaryRows(rows: SummaryRow[], json: boolean): unknown {
  if (json) return rows;
  return rows.map((row) => ({
    day: row.day,
    product: row.product,
    matched: row.states.matched.count,
    pending: row.states.pending.count,
    stale: row.states.stale.count,
    mismatched: row.states.mismatched.count,
    orphan: row.states.orphan.count,
    refunded: row.states.refunded.count,
    total: row.total.count,
    amount: row.total.amount,
    matchRate: row.matchRate === null ? '' : `${Math.round(row.matchRate * 100)}%`,
  }));
}

export async function receivablesAdd(
  ctx: Context,
  options: { id: string; clabe: string; amount: string; reference?: string; concept?: string; due: string },
): Promise<void> {
  flag(Clabe, '--clabe', options.clabe);
  flag(Amount, '--amount', options.amount);
  flag(Day, '--due', options.due);
  optionalFlag(Reference, '--reference', options.reference);
  await withLedger(ctx, async (db, ledger) => {
    ctx.out.result(
      await ledger.registerReceivable(db, {
        id: options.id,
        beneficiaryAccount: options.clabe,
        amount: options.amount,
        reference: options.reference ?? null,
        concept: options.concept ?? null,
        dueDate: options.due,
      }),
    );
  });
}

export const RECEIVABLES_HEADER = 'id,beneficiary_account,amount,reference,concept,due_date';

/**
 * A receivables CSV (RECEIVABLES_HEADER), read by csv-parse: quoted fields (with commas, quotes or
 * line breaks), a byte order mark and CRLF lines are all read as a spreadsheet writes them. Every
 * line is checked before anything is registered; a bad one is a UsageError naming its line.
 */
export function parseReceivables(text: string): NewReceivable[] {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    // With info: true each record comes with where it ends (csv-parse's types give only the records).
    records = parse(text, {
      bom: true,
      trim: true,
      skip_empty_lines: true,
      relax_column_count: true,
      info: true,
    }) as unknown as typeof records;
  } catch (error) {
    if (error instanceof CsvError)
      throw new UsageError(
        `line ${String((error as CsvError & { lines?: number }).lines ?? '?')}: ${error.message.replace(/\.$/, '')}; nothing was imported`,
      );
    throw error;
  }
  const [header, ...rows] = records;
  if (header?.record.join(',') !== RECEIVABLES_HEADER)
    throw new UsageError(`line 1: the header must be exactly "${RECEIVABLES_HEADER}"`);
  const out: NewReceivable[] = [];
  for (const { record: cells, info } of rows) {
    const n = info.lines;
    if (cells.length === 1 && cells[0] === '') continue;
    if (cells.length !== 6)
      throw new UsageError(
        `line ${n}: ${cells.length} fields, expected 6 (${RECEIVABLES_HEADER}); nothing was imported`,
      );
    const [id, account, amount, reference, concept, due] = cells as [string, string, string, string, string, string];
    const amountReading = readAmount(amount);
    const problem =
      id === ''
        ? 'id is empty'
        : !/^\d{18}$/.test(account)
          ? 'beneficiary_account must be an 18-digit CLABE'
          : !amountReading.ok
            ? amountReading.problem
            : reference !== '' && !/^\d{1,7}$/.test(reference)
              ? 'reference must be 1 to 7 digits, or empty'
              : !/^\d{4}-\d{2}-\d{2}$/.test(due)
                ? 'due_date must be YYYY-MM-DD'
                : undefined;
    if (problem) throw new UsageError(`line ${n}: ${problem}; nothing was imported`);
    out.push({
      id,
      beneficiaryAccount: account,
      amount,
      reference: reference || null,
      concept: concept || null,
      dueDate: due,
    });
  }
  return out;
}

export async function receivablesImport(ctx: Context, file: string): Promise<void> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
  }
  const receivables = parseReceivables(text);
  await withLedger(ctx, async (db, ledger) => {
    const bar = progress('receivables', { enabled: !ctx.out.json, total: receivables.length });
    for (const receivable of receivables) {
      await ledger.registerReceivable(db, receivable);
      bar.tick();
    }
    bar.done();
    ctx.out.result({ file, registered: receivables.length });
  });
}

export async function reportsImport(ctx: Context, file: string): Promise<void> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
  }
  await withLedger(ctx, async (db, ledger) => {
    try {
      ctx.out.result(await ledger.importReport(db, path.basename(file), text));
    } catch (error) {
      if (error instanceof ReportFormatError) throw new UsageError(`${file}: ${error.message}; nothing was imported`);
      throw error;
    }
  });
}
