// The gateway's stored events, through its admin API (the gateway owns its store; with PGlite it
// is the only process that can open it): list, show, and replay with today's rules.
import { gatewayOps } from '@paykit/contracts';
import { initClient } from '@ts-rest/core';
import type { Context } from '../cli/context.ts';
import { CliError, UsageError } from '../cli/errors.ts';
import { readSecret } from '../cli/secrets.ts';

function admin(ctx: Context) {
  const gateway = ctx.profile.gateway;
  if (!gateway) throw new UsageError(`Profile "${ctx.loaded.name}" has no gateway: add { "gateway": { "url": …, "adminToken": { "env": … } } }.`);
  if (!gateway.adminToken) throw new UsageError(`Profile "${ctx.loaded.name}" has no gateway.adminToken (the gateway's GATEWAY_ADMIN_TOKEN, from the environment or a file).`);
  const token = readSecret(gateway.adminToken, 'gateway.adminToken');
  return { client: initClient(gatewayOps, { baseUrl: gateway.url }), headers: { authorization: `Bearer ${token}` }, url: gateway.url };
}

async function call<T extends { status: number; body: unknown }>(url: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch {
    throw new CliError(`The gateway at ${url} does not answer.`, 'Start it (pnpm --filter @paykit/webhook-gateway start, or pnpm start) or fix gateway.url in the profile.');
  }
}

function fail(answer: { status: number; body: unknown }): never {
  const problem = answer.body as { error?: string; message?: string };
  const hint = answer.status === 401 ? 'Check that gateway.adminToken holds the gateway’s GATEWAY_ADMIN_TOKEN.' : answer.status === 403 ? 'Set GATEWAY_ADMIN_TOKEN on the gateway and restart it.' : undefined;
  throw new CliError(`The gateway answered ${answer.status}${problem?.message ? `: ${problem.message}` : ''}`, hint);
}

export async function eventsList(ctx: Context, options: { type?: string; source?: string; outcome?: string; before?: string; limit?: string }): Promise<void> {
  const { client, headers, url } = admin(ctx);
  const query = { eventType: options.type, source: options.source as 'core' | 'cash' | 'direct_debit' | undefined, outcome: options.outcome as 'accepted' | undefined, before: options.before, limit: options.limit === undefined ? undefined : Number(options.limit) };
  const answer = await call(url, () => client.listEvents({ headers, query }));
  if (answer.status !== 200) fail(answer);
  ctx.out.result(
    ctx.out.json ? answer.body.events : answer.body.events.map((e) => ({ seq: e.seq, receivedAt: e.receivedAt, source: e.source, type: e.eventType, outcome: e.outcome, status: e.answerStatus, deliveries: e.deliveries, drift: e.drift.length, idMsg: e.idMsg ?? e.dedupeKey })),
  );
}

export async function eventsShow(ctx: Context, seq: string): Promise<void> {
  const { client, headers, url } = admin(ctx);
  if (!/^\d+$/.test(seq)) throw new UsageError(`SEQ is a stored event number, as \`paykit events list\` shows (got "${seq}").`);
  const answer = await call(url, () => client.getEvent({ headers, params: { seq } }));
  if (answer.status !== 200) fail(answer);
  ctx.out.result(answer.body);
}

export async function eventsReplay(ctx: Context, seq: string): Promise<void> {
  const { client, headers, url } = admin(ctx);
  if (!/^\d+$/.test(seq)) throw new UsageError(`SEQ is a stored event number, as \`paykit events list\` shows (got "${seq}").`);
  const answer = await call(url, () => client.replayEvent({ headers, params: { seq }, body: {} }));
  if (answer.status !== 200) fail(answer);
  ctx.out.result(answer.body);
  if (!answer.body.sameAsStored) ctx.out.note(`Today's rules decide differently from the decision stored at receipt (${answer.body.outcome}, ${answer.body.answerStatus}); the stored event keeps its own.`);
}
