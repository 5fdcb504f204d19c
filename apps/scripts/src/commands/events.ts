// The gateway's stored events, through its admin API (the gateway owns its store; with PGlite it
// is the only process that can open it): list (paging the gateway's `before` cursor), show,
// replay with today's rules, and redeliver to a URL with the event's headers recomputed.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { gatewayOps, type StoredEventView } from '@paykit/contracts';
import { hmacSha256Hex } from '@paykit/runtime';
import { initClient, tsRestFetchApi } from '@ts-rest/core';
import * as z from 'zod';
import type { Context } from '../cli/context.ts';
import { DryRunStop } from '../cli/dry-run.ts';
import { CliError, UsageError } from '../cli/errors.ts';
import { Count, flag, optionalFlag } from '../cli/input.ts';
import { readSecret, shownUrl } from '../cli/secrets.ts';
import { defaultTokenDir } from './core.ts';

export type Admin = ReturnType<typeof admin>;

/**
 * Where `events replay --to` and `listen --forward-to` deliver: an http(s) URL without
 * user:password (a delivery authenticates with the webhook's own token or signature, and fetch
 * cannot send a URL's credentials).
 */
export const ReceiverUrl = z
  .url({ protocol: /^https?$/, message: 'must be an http(s) URL, e.g. http://127.0.0.1:3000/webhooks' })
  .refine((url) => !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url), {
    message:
      "must not carry user:password@ (a delivery authenticates with the webhook's own token or signature): drop the user-info",
  });

export function admin(ctx: Context) {
  const gateway = ctx.profile.gateway;
  if (!gateway)
    throw new UsageError(
      `Profile "${ctx.loaded.name}" has no gateway: add { "gateway": { "url": …, "adminToken": { "env": … } } }.`,
    );
  if (!gateway.adminToken)
    throw new UsageError(
      `Profile "${ctx.loaded.name}" has no gateway.adminToken (the gateway's GATEWAY_ADMIN_TOKEN, from the environment or a file).`,
    );
  const token = readSecret(gateway.adminToken, 'gateway.adminToken');
  const dryRun = ctx.fetch;
  return {
    client: initClient(gatewayOps, {
      baseUrl: gateway.url,
      // --dry-run: a request that would change something (a replay records its decision) is shown, not sent.
      ...(dryRun && {
        api: async (args) => {
          if (args.method !== 'GET')
            await dryRun(args.path, { method: args.method, headers: args.headers, body: args.body ?? null });
          return tsRestFetchApi(args);
        },
      }),
    }),
    headers: { authorization: `Bearer ${token}` },
    url: gateway.url,
  };
}

export async function call<T extends { status: number; body: unknown }>(
  url: string,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof DryRunStop) throw error;
    throw new CliError(
      `The gateway at ${shownUrl(url)} does not answer.`,
      'Start it (pnpm --filter @paykit/webhook-gateway start, or pnpm start) or fix gateway.url in the profile.',
    );
  }
}

export function fail(answer: { status: number; body: unknown }): never {
  const problem = answer.body as { error?: string; message?: string };
  const hint =
    answer.status === 401
      ? 'Check that gateway.adminToken holds the gateway’s GATEWAY_ADMIN_TOKEN (`pnpm start` writes its token to .data/gateway-admin-token).'
      : answer.status === 403
        ? 'Set GATEWAY_ADMIN_TOKEN on the gateway and restart it.'
        : undefined;
  throw new CliError(`The gateway answered ${answer.status}${problem?.message ? `: ${problem.message}` : ''}`, hint);
}

/** The gateway's largest page (its contract's `limit` maximum). */
const PAGE_MAX = 1000;
const DEFAULT_LIMIT = 50;
const SOURCES = z.enum(['core', 'cash', 'direct_debit'], { message: 'must be core, cash or direct_debit' });
const OUTCOMES = z.enum(['accepted', 'rejected', 'flagged', 'stored'], {
  message: 'must be accepted, rejected, flagged or stored',
});
const Seq = z.string().regex(/^\d{1,19}$/, 'is a stored event number, as `paykit events list` shows');

export interface EventFilter {
  type?: string;
  source?: string;
  outcome?: string;
}

/** Newest first from `before` (exclusive), page after page, until `wanted` events or the end. */
export async function* walkEvents(
  a: Admin,
  filter: EventFilter,
  before: string | undefined,
  wanted: number,
): AsyncGenerator<StoredEventView> {
  const query = {
    eventType: filter.type,
    source: optionalFlag(SOURCES, '--source', filter.source),
    outcome: optionalFlag(OUTCOMES, '--outcome', filter.outcome),
  };
  let cursor = before;
  let left = wanted;
  while (left > 0) {
    const limit = Math.min(PAGE_MAX, left);
    const answer = await call(a.url, () =>
      a.client.listEvents({ headers: a.headers, query: { ...query, before: cursor, limit } }),
    );
    if (answer.status !== 200) fail(answer);
    yield* answer.body.events;
    left -= answer.body.events.length;
    if (answer.body.events.length < limit) return;
    cursor = answer.body.events.at(-1)!.seq;
  }
}

export async function eventsList(
  ctx: Context,
  options: EventFilter & { before?: string; limit?: string; all?: boolean },
): Promise<void> {
  if (options.all && options.limit !== undefined) throw new UsageError('Give --limit N or --all, not both.');
  const before = optionalFlag(Seq, '--before', options.before);
  const limit = options.all
    ? Number.POSITIVE_INFINITY
    : options.limit === undefined
      ? DEFAULT_LIMIT
      : Number(flag(Count, '--limit', options.limit));
  const a = admin(ctx);
  const events: StoredEventView[] = [];
  // One more than asked for: whether there are more is then known without another request.
  for await (const event of walkEvents(a, options, before, limit + 1)) events.push(event);
  const more = events.length > limit;
  if (more) events.length = limit;
  ctx.out.result(
    ctx.out.json
      ? events
      : events.map((e) => ({
          seq: e.seq,
          receivedAt: e.receivedAt,
          source: e.source,
          type: e.eventType,
          outcome: e.outcome,
          status: e.answerStatus,
          deliveries: e.deliveries,
          drift: e.drift.length,
          idMsg: e.idMsg ?? e.dedupeKey,
        })),
  );
  if (more)
    ctx.out.info(
      `more: run with --limit ${limit * 2} / --all (or --before ${events.at(-1)!.seq} for the next ${limit})`,
    );
}

async function getEvent(a: Admin, seq: string) {
  const answer = await call(a.url, () => a.client.getEvent({ headers: a.headers, params: { seq } }));
  if (answer.status !== 200) fail(answer);
  return answer.body;
}

export async function eventsShow(ctx: Context, seq: string): Promise<void> {
  flag(Seq, 'SEQ', seq);
  const { rawBody: _raw, ...shown } = await getEvent(admin(ctx), seq);
  ctx.out.result(shown);
}

export async function eventsReplay(ctx: Context, seq: string, options: { to?: string }): Promise<void> {
  flag(Seq, 'SEQ', seq);
  const a = admin(ctx);
  if (options.to !== undefined) {
    const to = flag(ReceiverUrl, '--to', options.to);
    const { event, rawBody } = await getEvent(a, seq);
    const result = await redeliver(ctx, event, rawBody, to);
    ctx.out.result(result);
    if (result.status < 200 || result.status > 299)
      throw new CliError(`${result.to} answered ${result.status} to event ${seq}.`);
    return;
  }
  const answer = await call(a.url, () => a.client.replayEvent({ headers: a.headers, params: { seq }, body: {} }));
  if (answer.status !== 200) fail(answer);
  ctx.out.result(answer.body);
  if (!answer.body.sameAsStored)
    ctx.out.note(
      `Today's rules decide differently from the decision stored at receipt (${answer.body.outcome}, ${answer.body.answerStatus}); the stored event keeps its own.`,
    );
}

/** Where a core webhook token or the cash secret_token comes from: the environment, else the file `webhooks register` / `cash webhook create` wrote. */
function webhookSecret(ctx: Context, env: string, fileName: string, what: string): string {
  if (process.env[env]) return readSecret({ env }, what);
  const file = path.join(defaultTokenDir(), `${ctx.loaded.name}-${fileName}`);
  if (existsSync(file)) return readSecret({ file }, what);
  throw new UsageError(
    `${what}: set ${env}, or keep the file ${file} that \`paykit ${fileName.endsWith('.secret') ? 'cash webhook create' : 'webhooks register'}\` writes (PAYKIT_TOKEN_DIR).`,
  );
}

/** The headers a delivery of this event carries, recomputed for a new target. */
function deliveryHeaders(ctx: Context, event: StoredEventView, raw: Buffer): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': event.headers['content-type'] ?? 'application/json',
    'x-paykit-replay-of': event.seq,
  };
  if (event.headers['user-agent']) headers['user-agent'] = event.headers['user-agent'];
  if (event.source === 'core') {
    const token = webhookSecret(
      ctx,
      'PAYKIT_CORE_WEBHOOK_TOKEN',
      `${event.eventType.toLowerCase()}.token`,
      `the ${event.eventType} webhook token`,
    );
    headers.authorization = `Bearer ${token}`;
  } else if (event.source === 'cash') {
    const secret = webhookSecret(ctx, 'PAYKIT_CASH_WEBHOOK_SECRET', 'cash.secret', 'the cash webhook secret_token');
    headers['x-webhook-timestamp'] = String(Math.floor(Date.now() / 1000));
    headers['x-webhook-signature'] = hmacSha256Hex(secret, raw);
  }
  // Direct debit: how its deliveries authenticate is not shown; the body goes as it came.
  return headers;
}

export interface Redelivery {
  seq: string;
  source: string;
  type: string;
  to: string;
  status: number;
  bytes: number;
}

/** Sends the stored bytes of an event, unchanged, to `to`. */
export async function redeliver(
  ctx: Context,
  event: StoredEventView,
  rawBody: string | undefined,
  to: string,
): Promise<Redelivery> {
  if (rawBody === undefined)
    throw new CliError(
      `The gateway did not return the raw bytes of event ${event.seq}.`,
      'Upgrade the gateway: GET /admin/events/:seq returns rawBody.',
    );
  const raw = Buffer.from(rawBody, 'base64');
  const headers = deliveryHeaders(ctx, event, raw);
  let status: number;
  try {
    // No redirect is followed: it must not carry the credential to another address (a 3xx fails the replay).
    const answer = await (ctx.fetch ?? fetch)(to, {
      method: 'POST',
      headers,
      body: raw,
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
    });
    status = answer.status;
    await answer.body?.cancel();
  } catch (error) {
    if (error instanceof DryRunStop) throw error;
    throw new CliError(
      `${shownUrl(to)} did not answer event ${event.seq}: ${(error as Error).message}.`,
      'Check that the receiver is running and the URL is right.',
    );
  }
  return {
    seq: event.seq,
    source: event.source,
    type: event.eventType,
    to: shownUrl(to),
    status,
    bytes: raw.byteLength,
  };
}
