// Money the CLI moves is recorded in the ledger exactly as a product team's service records it:
// the core client's hooks are @paykit/ledger's createTransactionRecorder on the store the worker
// reads, so each transfer is written down (an intent, with its Idempotency-Key and who sent it:
// PAYKIT_ACTOR, default user@host) before it is sent, and its transaction attached after. The
// ledger is opened before anything is sent: when it cannot be, no money moves (unless
// --no-record), because a transfer the ledger never heard of turns every status update about it
// into an orphan.
import type { CoreClient } from '@paykit/core-client';
import type { Context } from './context.ts';
import { CliError, UsageError } from './errors.ts';

export interface RecordingCore {
  core: CoreClient;
  /** Where the transfer is recorded, for the note after it; undefined with --no-record or --dry-run. */
  ledger: string | undefined;
  /**
   * Whether the last transaction the platform answered was in the ledger already: the platform
   * dedupes a repeated request by its Idempotency-Key and answers with the first transaction.
   * Undefined when nothing was recorded (--no-record, --dry-run).
   */
  replayed(): boolean | undefined;
  /** The intent the last request was written down as (undefined with --no-record, --dry-run). */
  intentId(): string | undefined;
  /** The ledger's database, open until close(); undefined with --no-record or --dry-run. */
  db: Awaited<ReturnType<Context['database']>> | undefined;
  close(): Promise<void>;
}

const WHAT_TO_DO =
  'set DATABASE_URL (or the profile’s database.url) to the store the reconciliation worker reads, or pass --no-record to move the money unrecorded (its status updates will stay orphans)';

/** The core client for a command that moves money, recording in the ledger unless `record` is false. */
export async function recordingCore(ctx: Context, record: boolean): Promise<RecordingCore> {
  // --dry-run sends nothing that moves money: nothing to record.
  if (!record || ctx.flags.dryRun)
    return {
      core: await ctx.core(),
      ledger: undefined,
      replayed: () => undefined,
      intentId: () => undefined,
      db: undefined,
      close: async () => {},
    };
  const url = ctx.databaseUrl();
  if (url === undefined && ctx.environment !== 'sandbox') {
    // A PGlite folder on this machine is no ledger for staging or production money: no worker reads it.
    throw new CliError(
      `No ledger to record this transfer in (profile "${ctx.loaded.name}" is ${ctx.environment} and names no database); nothing was sent: ${WHAT_TO_DO}.`,
    );
  }
  const { createTransactionRecorder, defaultActor } = await import('@paykit/ledger');
  let db: Awaited<ReturnType<Context['database']>>;
  try {
    db = await ctx.database();
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const reason = (error as Error).message.replace(/[.\s]+$/, '');
    const held =
      url === undefined && /in use|being opened/.test(reason)
        ? ' (a running `pnpm start` holds its PGlite store: export the DATABASE_URL it prints, which serves that store over TCP)'
        : '';
    throw new CliError(`No ledger to record this transfer in: ${reason}${held}; nothing was sent: ${WHAT_TO_DO}.`);
  }
  try {
    let replayed: boolean | undefined;
    let intentId: string | undefined;
    const recorder = createTransactionRecorder(db, {
      actor: process.env.PAYKIT_ACTOR || defaultActor(),
      onRecorded: (recorded) => {
        replayed = recorded.replayed;
      },
    });
    const core = await ctx.core({
      onTransactionIntent: async (intent) => {
        intentId = await recorder.onTransactionIntent(intent);
        return intentId;
      },
      onTransactionCreated: recorder.onTransactionCreated,
      onTransactionFailed: recorder.onTransactionFailed,
    });
    return {
      core,
      ledger: db.description,
      replayed: () => replayed,
      intentId: () => intentId,
      db,
      close: () => db.close(),
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}
