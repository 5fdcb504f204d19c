// The core banking service: token, credentials, webhooks, penny validation, transfers, accounts.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  TransactionIntentError,
  TransactionRecordingError,
  type CoreClient,
  type WebhookType,
} from '@paykit/core-client';
import { maskSecret } from '@paykit/runtime';
import { formatMexicoCity } from '@paykit/domain';
import { INTERNAL_TRANSACTION_DEPRECATION } from '@paykit/codemods/deprecation';
import type { Context } from '../cli/context.ts';
import { CliError, UsageError } from '../cli/errors.ts';
import { Amount, Reference, flag, optionalFlag } from '../cli/input.ts';
import { recordingCore } from '../cli/ledger-recorder.ts';
import { rememberSecret } from '../cli/secrets.ts';

export const WEBHOOK_TYPES: readonly WebhookType[] = ['MONEY_IN', 'STATUS_UPDATE', 'CEP', 'REFUND', 'REPORT'];
/** Where `webhooks register --all-types <base>` points each type: the gateway's routes. */
const GATEWAY_PATHS: Record<WebhookType, string> = {
  MONEY_IN: '/webhooks/core/money-in',
  STATUS_UPDATE: '/webhooks/core/status-update',
  CEP: '/webhooks/core/cep',
  REFUND: '/webhooks/core/refund',
  REPORT: '/webhooks/core/report',
};

export async function authToken(ctx: Context): Promise<void> {
  const core = await ctx.core();
  const token = await core.tokens.current();
  const expires = new Date(token.expiresAt);
  ctx.out.result({
    environment: ctx.environment,
    clientId: core.clientId,
    credentialId: token.credentialId,
    tokenMasked: maskSecret(rememberSecret(token.token)),
    expiresMexicoCity: `${formatMexicoCity(expires)}, UTC-6`,
    expiresLocal: expires.toString(),
    expiresAt: token.expiresAt,
  });
}

export async function credentialsList(ctx: Context): Promise<void> {
  const { data } = await (await ctx.core()).credentials.list();
  ctx.out.result(
    data.map((c) => ({
      id: c.id,
      environment: c.environment,
      status: c.status,
      apiKeyMasked: typeof c.api_key === 'string' ? maskSecret(rememberSecret(c.api_key)) : '',
    })),
  );
}

function webhookType(value: string): WebhookType {
  const upper = value.toUpperCase().replace(/-/g, '_') as WebhookType;
  if (!WEBHOOK_TYPES.includes(upper))
    throw new UsageError(`--type must be one of ${WEBHOOK_TYPES.join(', ')} (got "${value}").`);
  return upper;
}

/** Keeps a secret in a file only its owner can read; returns the path. */
export function storeSecretFile(dir: string, fileName: string, token: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, fileName);
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

export function defaultTokenDir(): string {
  return process.env.PAYKIT_TOKEN_DIR ?? path.join(os.homedir(), '.config', 'paykit', 'webhook-tokens');
}

export async function webhooksRegister(
  ctx: Context,
  options: { type?: string; url?: string; allTypes?: string; authType?: string; tokenDir?: string },
): Promise<void> {
  const authType = (options.authType ?? 'AUTH').toUpperCase();
  if (!['AUTH', 'NO_AUTH', 'OAUTH'].includes(authType))
    throw new UsageError('--auth-type must be AUTH, NO_AUTH or OAUTH.');
  const targets: { type: WebhookType; url: string }[] = [];
  if (options.allTypes !== undefined) {
    const base = options.allTypes.replace(/\/$/, '');
    for (const type of WEBHOOK_TYPES) targets.push({ type, url: `${base}${GATEWAY_PATHS[type]}` });
  } else {
    if (!options.type || !options.url)
      throw new UsageError(
        'Give --type and --url, or --all-types <gateway base URL> to register the five types at the gateway’s routes.',
      );
    targets.push({ type: webhookType(options.type), url: options.url });
  }
  const core = await ctx.core();
  const dir = options.tokenDir ?? defaultTokenDir();
  const rows = [];
  for (const target of targets) {
    const { webhook, token } = await core.webhooks.register({
      webhookType: target.type,
      url: target.url,
      authType: authType as 'AUTH' | 'NO_AUTH' | 'OAUTH',
    });
    rememberSecret(token);
    const file =
      authType === 'NO_AUTH'
        ? ''
        : storeSecretFile(dir, `${ctx.loaded.name}-${target.type.toLowerCase()}.token`, token);
    rows.push({
      type: target.type,
      id: (webhook as { id?: unknown }).id,
      url: target.url,
      tokenMasked: authType === 'NO_AUTH' ? '' : maskSecret(token),
      tokenFile: file,
    });
  }
  ctx.out.result(rows);
  if (authType !== 'NO_AUTH')
    ctx.out.note(
      `Tokens are in ${dir} (mode 600). Give each to the gateway as GATEWAY_CORE_TOKENS_<TYPE> (read it from the file; never paste it into a shell history).`,
    );
}

export async function webhooksList(ctx: Context): Promise<void> {
  // The configurations' fields are camelCase (WebhookConfiguration); auth_type and the token are never returned.
  ctx.out.result(await (await ctx.core()).webhooks.list(), ['id', 'webhookType', 'url', 'webhookStatus', 'createdAt']);
}

export async function webhooksGet(ctx: Context, id: string): Promise<void> {
  ctx.out.result(await (await ctx.core()).webhooks.get(id));
}

export async function webhooksUpdate(
  ctx: Context,
  id: string,
  options: { url?: string; status?: string },
): Promise<void> {
  const status = options.status?.toUpperCase();
  if (status !== undefined && status !== 'ACTIVE' && status !== 'INACTIVE')
    throw new UsageError('--status must be ACTIVE or INACTIVE.');
  if (options.url === undefined && status === undefined)
    throw new UsageError('Give --url and/or --status (use rotate-token to change the token).');
  ctx.out.result(
    await (await ctx.core()).webhooks.update(id, {
      url: options.url,
      webhookStatus: status as 'ACTIVE' | 'INACTIVE' | undefined,
    }),
  );
}

export async function webhooksDelete(ctx: Context, id: string): Promise<void> {
  ctx.out.result(await (await ctx.core()).webhooks.delete(id));
}

export async function webhooksRotateToken(ctx: Context, id: string, options: { tokenDir?: string }): Promise<void> {
  const { webhook, token } = await (await ctx.core()).webhooks.rotateToken(id);
  rememberSecret(token);
  // The same file `webhooks register` wrote for this type: the rotated token replaces it.
  const type = String((webhook as { webhookType?: unknown } | null)?.webhookType ?? id).toLowerCase();
  const file = storeSecretFile(options.tokenDir ?? defaultTokenDir(), `${ctx.loaded.name}-${type}.token`, token);
  ctx.out.result({ id, tokenMasked: maskSecret(token), tokenFile: file });
  ctx.out.note(
    'Accept both the old and the new token at the gateway (GATEWAY_CORE_TOKENS_<TYPE>=new,old) until deliveries carry the new one.',
  );
}

export interface TransferOptions {
  source: string;
  destination: string;
  amount?: string;
  description?: string;
  reference?: string;
  /** false with --no-record: the transfer is not recorded in the ledger. */
  record?: boolean;
}

/** An amount as the platform takes it: a decimal string with two decimals, checked without a float. */
function amountOf(value: string | undefined): string {
  if (value === undefined)
    throw new UsageError('--amount is required: pesos as a decimal string with two decimals, e.g. 1500.00.');
  return flag(Amount, '--amount', value);
}

/** The body the three transfer commands send (amount added by those that move money). */
function transferBody(options: TransferOptions) {
  return {
    source_instrument_id: options.source,
    destination_instrument_id: options.destination,
    description: options.description,
    external_reference: optionalFlag(Reference, '--reference', options.reference),
  };
}

/**
 * Sends one transfer through a core client that records it in the ledger first opened (before
 * the confirmation, so nothing is asked that cannot be recorded), then prints the transaction.
 */
async function moveMoney(
  ctx: Context,
  options: TransferOptions,
  question: string,
  send: (core: CoreClient) => Promise<unknown>,
  replayNote = 'no money moved',
): Promise<void> {
  const recording = await recordingCore(ctx, options.record ?? true);
  try {
    await ctx.confirm(question);
    let transaction: unknown;
    try {
      transaction = await send(recording.core);
    } catch (error) {
      if (error instanceof TransactionIntentError) {
        throw new CliError(
          `Nothing was sent and no money moved: the transfer could not be written down in the ledger first (${causeOf(error)}). Run the same command again once the ledger is reachable.`,
        );
      }
      if (!(error instanceof TransactionRecordingError)) throw error;
      // The money moved; the ledger did not take the answer. Print the transaction so it is not lost.
      ctx.out.result(error.transaction);
      throw new CliError(unrecordedMessage(error));
    }
    const replayed = recording.replayed();
    ctx.out.result(replayed === undefined || !ctx.out.json ? transaction : { ...(transaction as object), replayed });
    if (replayed) {
      const tx = transaction as { id?: unknown; audit?: { createdAt?: unknown } };
      ctx.out.warn(
        `replay of ${String(tx.id)} created at ${String(tx.audit?.createdAt ?? '(time not returned)')}; ${replayNote} (the platform answered a repeated request with its first transaction; change --reference or --description for a new one).`,
      );
    } else if (recording.ledger !== undefined)
      ctx.out.note(`Recorded in the ledger (${recording.ledger}), intent ${recording.intentId() ?? '(none)'}.`);
    else if (!ctx.flags.dryRun)
      ctx.out.warn('Not recorded in the ledger (--no-record): the status updates of this transfer will stay orphans.');
  } finally {
    await recording.close();
  }
}

function causeOf(error: Error): string {
  return (error.cause instanceof Error ? error.cause.message : error.message).replace(/[.\s]+$/, '');
}

/** What happened when the money moved but its answer could not be attached: the truth, and the safe next step. */
function unrecordedMessage(error: TransactionRecordingError): string {
  const id = (error.transaction as { id?: unknown } | null)?.id;
  const moved = `The platform created transaction ${typeof id === 'string' ? id : '(id not returned)'} (the money moved), but the ledger could not attach it: ${causeOf(error)}.`;
  const intent = error.intentId === undefined ? undefined : `The intent is recorded (intent ${error.intentId})`;
  if (error.idempotencyKey === undefined) {
    return `${moved} ${intent ? `${intent} and stays listed by \`paykit transfers unresolved\`` : 'Keep the transaction printed above'}. Do not run the command again: internal_transaction carries no Idempotency-Key, so it would move the money twice.`;
  }
  const safe = `running the same command again is safe (same Idempotency-Key ${error.idempotencyKey}: within 24 h the platform answers this same transaction and moves nothing, and the answer is attached)`;
  return intent
    ? `${moved} ${intent}: ${safe}, or \`paykit transfers resolve ${error.intentId}\` attaches it.`
    : `${moved} Keep the transaction printed above; ${safe}.`;
}

export async function pennyValidate(ctx: Context, options: TransferOptions): Promise<void> {
  const body = transferBody(options);
  await moveMoney(
    ctx,
    options,
    `Send a 0.01 MXN penny validation from ${options.source} to ${options.destination}?`,
    (core) => core.transactions.pennyValidation(body),
    'no new validation was made',
  );
}

/** money_out's and internal_transaction's documented body: the money nested in transaction_request. */
function transferRequest(options: TransferOptions) {
  const { description, external_reference, ...parties } = transferBody(options);
  return {
    ...parties,
    transaction_request: {
      amount: amountOf(options.amount),
      currency: 'MXN' as const,
      description,
      external_reference,
    },
  };
}

export async function moneyOut(ctx: Context, options: TransferOptions): Promise<void> {
  const body = transferRequest(options);
  await moveMoney(
    ctx,
    options,
    `Send ${body.transaction_request.amount} MXN from ${options.source} to ${options.destination}?`,
    (core) => core.transactions.moneyOut(body),
  );
}

export async function internalTransaction(ctx: Context, options: TransferOptions): Promise<void> {
  const body = transferRequest(options);
  const equivalent = `paykit money-out --source ${options.source} --destination ${options.destination} --amount ${body.transaction_request.amount}${options.description ? ` --description "${options.description}"` : ''}`;
  ctx.out.warn(
    `${INTERNAL_TRANSACTION_DEPRECATION} The equivalent: ${equivalent} (code: \`paykit migrate money-out\` rewrites the calls).`,
  );
  await moveMoney(
    ctx,
    options,
    `Send ${body.transaction_request.amount} MXN from ${options.source} to ${options.destination} (internal_transaction)?`,
    (core) => core.transactions.internalTransaction(body),
  );
}

export async function account(ctx: Context, action: 'block' | 'activate' | 'cancel', accountId: string): Promise<void> {
  await ctx.confirm(
    `${action === 'cancel' ? 'Cancel (permanently)' : action === 'block' ? 'Block' : 'Activate'} account ${accountId}?`,
  );
  ctx.out.result(await (await ctx.core()).accounts[action](accountId));
}
