// `paykit store`: the event store's month partitions, and retention: archive the months the
// ledger no longer reads to compressed files (then drop them), list the archives, restore one for
// an audit. The rules of what may be archived are the ledger's (@paykit/ledger, archive/).
import path from 'node:path';
import { z } from 'zod';
import type { Context } from '../cli/context.ts';
import { Day, flag } from '../cli/input.ts';
import { withDatabase, withLedger } from './ledger.ts';

const WindowDays = z.coerce.number().int('must be a whole number of days').min(1, 'must be at least 1 day');

type Db = Awaited<ReturnType<Context['database']>>;

/**
 * `work` on a connection of its own with the long statement deadline (the store's
 * withLongStatements): archiving or restoring a month can outlast a serving statement's deadline.
 */
async function withLongConnection<T>(ctx: Context, db: Db, work: (long: Db) => Promise<T>): Promise<T> {
  const { withLongStatements } = await import('@paykit/store');
  const url = ctx.databaseUrl();
  return withLongStatements(db, url === undefined ? {} : { databaseUrl: url }, work);
}

/** `paykit store partitions`: creates this month's and the next months' partitions where missing, then lists every partition. */
export async function storePartitions(ctx: Context): Promise<void> {
  await withDatabase(ctx, async (db, store) => {
    await store.ensureEventPartitions(db);
    const partitions = await store.listEventPartitions(db);
    ctx.out.result(
      ctx.out.json
        ? partitions
        : partitions.map((p) => ({
            partition: p.name,
            from: p.from?.toISOString().slice(0, 10) ?? '(any month without a partition)',
            to: p.to?.toISOString().slice(0, 10) ?? '',
            events: p.events,
            MB: (p.bytes / 1_048_576).toFixed(1),
          })),
    );
  });
}

/** `paykit store archive --before <day> --dir <folder>`: archives and drops every month that ended by then and may go. */
export async function storeArchive(
  ctx: Context,
  options: { before?: string; dir?: string; dedupeWindow?: string },
): Promise<void> {
  const before = flag(Day, '--before', options.before ?? '');
  const dir = path.resolve(options.dir ?? 'archive');
  const dedupeWindowDays =
    options.dedupeWindow === undefined ? undefined : flag(WindowDays, '--dedupe-window', options.dedupeWindow);
  await withLedger(ctx, async (db, ledger) => {
    const result = await withLongConnection(ctx, db, (long) =>
      ledger.archiveEvents(long, { before: new Date(`${before}T00:00:00Z`), dir, dedupeWindowDays }),
    );
    for (const month of result.kept) ctx.out.info(`kept ${month.partition} (${month.events} events): ${month.reason}`);
    if (result.archived.length === 0 && result.kept.length === 0)
      ctx.out.note(`no month ended by ${before}: nothing to archive`);
    ctx.out.result(
      ctx.out.json
        ? result
        : result.archived.map((m) => ({
            partition: m.partition,
            events: m.events,
            file: m.file,
            sha256: m.sha256,
            MB: (m.bytes / 1_048_576).toFixed(2),
          })),
    );
  });
}

/** `paykit store archives`: every archive written, and whether it was restored. */
export async function storeArchives(ctx: Context): Promise<void> {
  await withDatabase(ctx, async (db, store) => {
    const archives = await store.listEventArchives(db);
    ctx.out.result(
      ctx.out.json
        ? archives
        : archives.map((a) => ({
            partition: a.partition,
            events: a.events,
            seqs: a.firstSeq === null ? '' : `${a.firstSeq}–${a.lastSeq}`,
            file: a.file,
            archived: a.archivedAt.toISOString(),
            restored: a.restoredAt?.toISOString() ?? '',
          })),
    );
  });
}

/** `paykit store restore <file>`: an archive back into the database (checked against its manifest first). */
export async function storeRestore(ctx: Context, file: string): Promise<void> {
  await withLedger(ctx, async (db, ledger) => {
    const result = await withLongConnection(ctx, db, (long) => ledger.restoreArchive(long, path.resolve(file)));
    ctx.out.note(
      `restored ${result.restored} of the ${result.events} events of ${result.partition}` +
        (result.restored < result.events ? ' (the others were there already)' : ''),
    );
    ctx.out.result(
      ctx.out.json ? result : { partition: result.partition, events: result.events, restored: result.restored },
    );
  });
}
