// Transfers written down (intents) whose answer never reached the ledger: list them, and resolve
// one by replaying its request with the same Idempotency-Key, which the platform answers with the
// transaction of the first request if that arrived (within its 24 h window). Only a person
// running `resolve` resends anything: a request that never arrived may have been retried another
// way since, so nothing replays by itself.
import type { MoneyOutInput, PennyValidationInput } from '@paykit/core-client';
import type { UnresolvedIntent } from '@paykit/ledger';
import { formatMexicoCity } from '@paykit/domain';
import type { Context } from '../cli/context.ts';
import { CliError, UsageError } from '../cli/errors.ts';
import { recordingCore } from '../cli/ledger-recorder.ts';
import { withDatabase } from './ledger.ts';

/** "2 h 05 min", "3 d 4 h": how long an intent has waited. */
export function age(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${String(minutes % 60).padStart(2, '0')} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

function row(intent: UnresolvedIntent) {
  return {
    intent: intent.id,
    amount: intent.amount,
    age: age(intent.ageSeconds),
    sentBy: intent.actor,
    operation: intent.operation,
    reference: intent.externalReference ?? '',
    attempts: intent.attempts,
    replayable: intent.replayable ? `until ${formatMexicoCity(intent.replayableUntil)}` : 'no (past 24 h)',
  };
}

export async function transfersUnresolved(ctx: Context): Promise<void> {
  await withDatabase(ctx, async (db) => {
    const { listUnresolvedIntents } = await import('@paykit/ledger');
    const intents = await listUnresolvedIntents(db);
    if (ctx.out.json) {
      ctx.out.result(intents);
      return;
    }
    ctx.out.result(intents.map(row));
    ctx.out.note(
      intents.length === 0
        ? 'No unresolved transfers: every transfer written down has its transaction.'
        : `${intents.length} transfer(s) sent without a recorded answer: \`paykit transfers resolve <intent>\` replays one with its Idempotency-Key and attaches the answer.`,
    );
  });
}

export async function transfersResolve(ctx: Context, intentId: string): Promise<void> {
  const recording = await recordingCore(ctx, true);
  try {
    const db = recording.db;
    if (db === undefined) throw new UsageError('transfers resolve sends a request: it cannot run with --dry-run.');
    const { getIntent, IDEMPOTENCY_WINDOW_MS } = await import('@paykit/ledger');
    const intent = await getIntent(db, intentId);
    if (intent === undefined)
      throw new UsageError(
        `No intent ${intentId} in the ledger (${db.description}): \`paykit transfers unresolved\` lists them.`,
      );
    if (intent.transactionId !== null) {
      ctx.out.result({
        intent: intent.id,
        transactionId: intent.transactionId,
        attachedBy: intent.attachedBy,
        replayed: false,
      });
      ctx.out.note(`Intent ${intent.id} already has its transaction ${intent.transactionId}: nothing was sent.`);
      return;
    }
    if (intent.failedAt !== null)
      throw new CliError(
        `Intent ${intent.id} was refused by the platform (${intent.failure ?? 'no reason kept'}): no money moved, and nothing was sent now.`,
      );
    const what = `${intent.amount} MXN from ${intent.sourceInstrument} to ${intent.destinationInstrument}${intent.externalReference ? `, reference ${intent.externalReference}` : ''}`;
    if (intent.idempotencyKey === null)
      throw new CliError(
        `Intent ${intent.id} (${what}) is an internal_transaction, which carries no Idempotency-Key: a replay would move the money again if the first request arrived. Nothing was sent. Look for it in the platform's report of ${formatMexicoCity(intent.createdAt).slice(0, 10)} (\`paykit reports import\`) or ask the platform's support.`,
      );
    const closes = new Date(intent.createdAt.getTime() + IDEMPOTENCY_WINDOW_MS);
    if (new Date() >= closes)
      throw new CliError(
        `Intent ${intent.id} (${what}) was first sent at ${formatMexicoCity(intent.createdAt)} (Mexico City), more than 24 h ago: the platform no longer answers Idempotency-Key ${intent.idempotencyKey} with its first answer, so a replay would send the money again if the first request arrived. Nothing was sent. Look for the transfer in the platform's report of ${formatMexicoCity(intent.createdAt).slice(0, 10)} (\`paykit reports import\`) or ask the platform's support; send it anew with \`paykit money-out\` only once you know it never moved.`,
      );
    await ctx.confirm(
      `Replay intent ${intent.id} (${what}) with Idempotency-Key ${intent.idempotencyKey}? If the first request arrived the platform answers its transaction and nothing moves; if it did not, this sends the money now.`,
    );
    const options = { idempotencyKey: intent.idempotencyKey };
    const transaction =
      intent.operation === 'penny_validation'
        ? await recording.core.transactions.pennyValidation(intent.request as PennyValidationInput, options)
        : await recording.core.transactions.moneyOut(intent.request as MoneyOutInput, options);
    const replayed = recording.replayed() ?? false;
    ctx.out.result({ intent: intent.id, transactionId: transaction.id, replayed, transaction });
    ctx.out.note(
      replayed
        ? `Attached: the platform answered transaction ${transaction.id} of the first request; no money moved now.`
        : `Attached transaction ${transaction.id}: the first request had not reached the platform, so the money was sent now.`,
    );
  } finally {
    await recording.close();
  }
}
