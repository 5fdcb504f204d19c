// The books (@paykit/ledger's journal, on the store's database): the money figures a finance team
// acts on, each item's postings down to the fact they stand on, the invariants, and held credits,
// released after the gateway re-decides them under its current policy.
import { userInfo } from 'node:os';
import type * as LedgerModule from '@paykit/ledger';
import * as z from 'zod';
import type { Context } from '../cli/context.ts';
import { CliError, UsageError } from '../cli/errors.ts';
import { Day, flag, optionalFlag } from '../cli/input.ts';
import { admin, call, fail } from './events.ts';
import { withDatabase } from './ledger.ts';

type Ledger = typeof LedgerModule;
type Db = Awaited<ReturnType<Context['database']>>;

async function withBooks<T>(ctx: Context, run: (db: Db, ledger: Ledger) => Promise<T>): Promise<T> {
  const ledger = await import('@paykit/ledger');
  return withDatabase(ctx, (db) => run(db, ledger));
}

/** `paykit books`: money in and out over the range from the journal, and whether the books hold. */
export async function books(ctx: Context, options: { from?: string; to?: string }): Promise<void> {
  optionalFlag(Day, '--from', options.from);
  optionalFlag(Day, '--to', options.to);
  await withBooks(ctx, async (db, ledger) => {
    const rows = await ledger.moneyFigures(db, {
      ...(options.from ? { from: options.from } : {}),
      ...(options.to ? { to: options.to } : {}),
    });
    const check = await ledger.checkBooks(db);
    const totals = rows.filter((row) => row.day === null);
    if (ctx.out.json) {
      ctx.out.result({ figures: rows, check });
    } else {
      ctx.out.result(totals.map(({ direction, figure, count, amount }) => ({ direction, figure, count, amount })));
      ctx.out.note(
        check.ok
          ? `books balanced: debits ${check.debits} = credits ${check.credits} over ${check.postingsChecked} postings; ${check.itemsChecked} items as their facts say`
          : `BOOKS BROKEN: unbalanced postings ${check.unbalancedPostings.join(', ') || 'none'}; items off ${check.itemsOff.map((i) => `${i.item} ${i.account} (booked ${i.booked}, expected ${i.expected})`).join('; ') || 'none'}`,
      );
    }
    if (!check.ok)
      throw new CliError('The books do not hold: see above.', 'Report it with the output of `paykit books --json`.');
  });
}

const Item = z
  .string()
  .regex(
    /^(tx|dd|rcv|int):.{1,200}$/s,
    'is tx:<transaction id>, dd:<charge id>, rcv:<receivable id> or int:<intent id>',
  );

/** `paykit books item <item>`: every entry of one item, with the fact it stands on. */
export async function booksItem(ctx: Context, item: string): Promise<void> {
  flag(Item, 'ITEM', item);
  await withBooks(ctx, async (db, ledger) => {
    const entries = await ledger.itemJournal(db, item);
    if (entries.length === 0)
      ctx.out.note(`${item} has no entries: nothing of it is money (yet), or it is not in the ledger.`);
    ctx.out.result(ctx.out.json ? entries : entries.map(({ postedAt: _at, ...entry }) => entry));
  });
}

/** `paykit held list`: every credit still held, the oldest first. */
export async function heldList(ctx: Context): Promise<void> {
  await withBooks(ctx, async (db, ledger) => {
    const held = await ledger.listHeld(db, { limit: 10_000 });
    ctx.out.result(
      ctx.out.json
        ? held
        : held.map((h) => ({
            seq: h.seq,
            transaction: h.transactionId,
            account: h.account,
            amount: h.amount,
            received: h.transactionAt.toISOString(),
            held: `${h.outcome}: ${h.reason ?? ''}`,
            gatewayNow: h.redecision === null ? '' : h.redecision.outcome,
          })),
    );
  });
}

const Credit = z.string().regex(/^[\w.:-]{1,200}$/, 'is a stored event number or a MONEY_IN transaction id');

/**
 * `paykit held release <seq|transaction>`: the gateway re-decides the credit's event under its
 * current policy (its admin replay); only when it accepts is the credit released and booked as
 * money in, recorded as released by `--by` (default: this user).
 */
export async function heldRelease(
  ctx: Context,
  credit: string,
  options: { by?: string; note?: string },
): Promise<void> {
  flag(Credit, 'CREDIT', credit);
  const by = options.by ?? userInfo().username;
  await withBooks(ctx, async (db, ledger) => {
    const held = await ledger.findCredit(db, credit);
    if (!held?.held)
      throw new UsageError(
        `No held credit ${credit}: \`paykit held list\` shows the credits still held (by seq and transaction).`,
      );
    const a = admin(ctx);
    const answer = await call(a.url, () =>
      a.client.replayEvent({ headers: a.headers, params: { seq: held.seq }, body: {} }),
    );
    if (answer.status !== 200) fail(answer);
    if (answer.body.outcome !== 'accepted')
      throw new CliError(
        `The gateway still does not accept event ${held.seq} (${answer.body.outcome}: ${answer.body.reason ?? 'no reason given'}); nothing was released.`,
        'Resolve the reason it gives (an unknown account: `paykit known-accounts add <clabe>`), then run this again.',
      );
    const release = await ledger.releaseHeld(db, { credit: held.transactionId, by, note: options.note ?? null });
    ctx.out.result(release);
  });
}
