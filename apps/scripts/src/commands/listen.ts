// `paykit listen` (like `stripe listen`): the gateway's admin API polled with a cursor (the
// highest seq printed), each new stored event printed once, oldest first. A repeated delivery of
// an event already stored adds to its `deliveries` count and is not printed again. Ctrl-C exits 0.
// On PostgreSQL a seq is drawn when a transaction inserts, not when it commits: an event may show
// up after others with higher seqs. So each poll looks LOOKBACK seqs behind the cursor and prints
// what it has not printed yet.
import type { StoredEventView } from '@paykit/contracts';
import type { Context } from '../cli/context.ts';
import { Count, flag, optionalFlag } from '../cli/input.ts';
import { maskKnown, shownUrl } from '../cli/secrets.ts';
import { admin, call, fail, ReceiverUrl, redeliver, walkEvents, type Admin } from './events.ts';

const DEFAULT_INTERVAL_MS = 500;
/** How far behind the highest seq printed a late commit is still caught: a few concurrent group-commit batches, and one page of the admin API. */
const LOOKBACK = 1_000n;

/** Every event newer than `after`, oldest first. */
async function newerThan(
  a: Admin,
  filter: { type?: string; source?: string },
  after: bigint,
): Promise<StoredEventView[]> {
  const found: StoredEventView[] = [];
  for await (const event of walkEvents(a, filter, undefined, Number.POSITIVE_INFINITY)) {
    if (BigInt(event.seq) <= after) break;
    found.push(event);
  }
  return found.reverse();
}

function line(event: StoredEventView): string {
  return [
    event.receivedAt,
    event.source,
    event.eventType,
    event.outcome,
    event.idMsg ?? event.dedupeKey,
    `seq ${event.seq}`,
  ].join('  ');
}

export async function listen(
  ctx: Context,
  options: { forwardTo?: string; interval?: string; source?: string; type?: string },
): Promise<void> {
  const interval =
    options.interval === undefined ? DEFAULT_INTERVAL_MS : Number(flag(Count, '--interval', options.interval));
  const forwardTo = optionalFlag(ReceiverUrl, '--forward-to', options.forwardTo);
  const a = admin(ctx);
  const filter = { source: options.source, type: options.type };
  // The cursor starts at the newest stored event: what arrived before `listen` is history (`events list`).
  const head = await call(a.url, () => a.client.listEvents({ headers: a.headers, query: { limit: 1 } }));
  if (head.status !== 200) fail(head);
  let cursor = BigInt(head.body.events[0]?.seq ?? '0');
  // Seqs within LOOKBACK of the cursor already printed, or stored before `listen` started.
  const seen = new Set<bigint>();
  for (const event of await newerThan(a, filter, cursor - LOOKBACK)) seen.add(BigInt(event.seq));

  let stopped = false;
  let wake: (() => void) | undefined;
  const stop = () => {
    stopped = true;
    wake?.();
  };
  // `on`, and never removed: through pnpm, Ctrl-C arrives twice (from the terminal, and passed on by
  // pnpm), the second possibly after the loop ended; the default action would then kill the process
  // by the signal, and pnpm would report the signal instead of this command's exit code 0.
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  ctx.out.info(
    `Listening to ${shownUrl(a.url)} (every ${interval} ms${forwardTo ? `, forwarding to ${shownUrl(forwardTo)}` : ''}); Ctrl-C to stop.`,
  );
  while (!stopped) {
    for (const event of await newerThan(a, filter, cursor - LOOKBACK)) {
      const seq = BigInt(event.seq);
      if (seen.has(seq)) continue;
      seen.add(seq);
      const forwarded = forwardTo === undefined ? undefined : await forward(ctx, a, event, forwardTo);
      process.stdout.write(
        `${maskKnown(ctx.out.json ? JSON.stringify({ ...summary(event), ...(forwarded && { forwarded }) }) : `${line(event)}${forwarded ? `  → ${forwarded.status ?? forwarded.error}` : ''}`)}\n`,
      );
      if (seq > cursor) cursor = seq;
    }
    for (const seq of seen) if (seq <= cursor - LOOKBACK) seen.delete(seq);
    await new Promise<void>((resolve) => {
      wake = resolve;
      setTimeout(resolve, interval);
    });
  }
}

function summary(event: StoredEventView) {
  return {
    seq: event.seq,
    receivedAt: event.receivedAt,
    source: event.source,
    type: event.eventType,
    outcome: event.outcome,
    id: event.idMsg ?? event.dedupeKey,
    status: event.answerStatus,
  };
}

/** Redelivers one event; a receiver that fails is reported on its line and listening goes on. */
async function forward(
  ctx: Context,
  a: Admin,
  event: StoredEventView,
  to: string,
): Promise<{ status?: number; error?: string }> {
  const answer = await call(a.url, () => a.client.getEvent({ headers: a.headers, params: { seq: event.seq } }));
  if (answer.status !== 200) fail(answer);
  try {
    return { status: (await redeliver(ctx, event, answer.body.rawBody, to)).status };
  } catch (error) {
    return { error: (error as Error).message };
  }
}
