// Direct debit, cash, remittance and the three bearer-token products.
import { createWriteStream, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { neutraliseFormula } from '@paykit/contracts';
import { stringify, type Options } from 'csv-stringify';
import type { Context } from '../cli/context.ts';
import { UsageError } from '../cli/errors.ts';
import { Count, flag } from '../cli/input.ts';
import { progress } from '../cli/progress.ts';
import { rememberSecret } from '../cli/secrets.ts';
import { maskSecret, redactBody } from '@paykit/runtime';
import { defaultTokenDir, storeSecretFile } from './core.ts';

export async function customersCreate(
  ctx: Context,
  options: { name: string; documentType: string; documentNumber: string; email?: string; phone?: string },
): Promise<void> {
  const dd = await ctx.directDebit();
  const body = {
    name: options.name,
    document_type: options.documentType,
    document_number: options.documentNumber,
    email: options.email,
    phone: options.phone,
  };
  ctx.out.result(await dd.customers.create(body as Parameters<typeof dd.customers.create>[0]));
}

function limitOf(value: string | undefined): number | undefined {
  return value === undefined ? undefined : Number(flag(Count, '--limit', value));
}

export async function instrumentsList(ctx: Context, options: { limit?: string }): Promise<void> {
  const dd = await ctx.directDebit();
  const bar = progress('instruments', { enabled: !ctx.out.json });
  const all = [];
  for await (const page of dd.instruments.pages({ limit: limitOf(options.limit) })) {
    all.push(...page.instruments);
    bar.tick(page.instruments.length);
  }
  bar.done(`${all.length} in all`);
  ctx.out.result(all, ['id', 'type', 'status', 'currency', 'customer_id', 'created_at']);
}

export async function instrumentsExport(
  ctx: Context,
  options: { format?: string; out?: string; limit?: string },
): Promise<void> {
  const format = options.format ?? 'jsonl';
  if (format !== 'csv' && format !== 'jsonl') throw new UsageError('--format must be csv or jsonl.');
  if (!options.out) throw new UsageError('--out FILE is required (the export can be large).');
  const dd = await ctx.directDebit();
  const file = createWriteStream(options.out, { flags: 'w' });
  const bar = progress(`exporting to ${options.out}`, { enabled: !ctx.out.json });
  // JSON lines, or CSV whose header is the first instrument's fields (csv-stringify finds them).
  const out = format === 'jsonl' ? jsonLines() : stringify(CSV_EXPORT_OPTIONS);
  const written = pipeline(out, file);
  let count = 0;
  for await (const page of dd.instruments.pages({ limit: limitOf(options.limit) ?? 500 })) {
    for (const instrument of page.instruments) {
      // Card numbers to their last 4 digits, as on screen: an export is output too.
      if (!out.write(redactBody(instrument))) await once(out, 'drain');
      count++;
    }
    bar.tick(page.instruments.length);
  }
  out.end();
  await written;
  bar.done(`${count} instruments`);
  ctx.out.result({ file: options.out, format, instruments: count });
}

/** The CLI's CSV: a header row, LF line ends, every cell as text with formulas neutralised, objects as JSON. */
export const CSV_EXPORT_OPTIONS: Options = {
  header: true,
  record_delimiter: 'unix',
  // csv-stringify quotes a field holding the delimiter, a quote or the record delimiter (\n); a
  // carriage return is a line break to some readers too.
  quoted_match: /\r/,
  cast: {
    string: neutraliseFormula,
    number: (value) => neutraliseFormula(String(value)),
    boolean: (value) => String(value),
    date: (value) => value.toISOString(),
    object: (value) => neutraliseFormula(JSON.stringify(value)),
  },
};

/** One JSON object per line. */
function jsonLines(): Transform {
  return new Transform({
    writableObjectMode: true,
    transform(record: unknown, _encoding, done) {
      done(null, `${JSON.stringify(record)}\n`);
    },
  });
}

export async function cashWebhookCreate(ctx: Context, options: { url: string; tokenDir?: string }): Promise<void> {
  const created = await (await ctx.cash()).webhooks.create(options.url);
  const { secret_token: secretToken, ...shown } = created;
  const secret = rememberSecret(String(secretToken));
  const file = storeSecretFile(options.tokenDir ?? defaultTokenDir(), `${ctx.loaded.name}-cash.secret`, secret);
  // Without the secret_token key at all: a blank "secret_token" row would read as "none was returned".
  ctx.out.result({ ...shown, secretTokenMasked: maskSecret(secret), secretTokenFile: file });
  ctx.out.note(
    `The secret_token is returned only at creation: it is in ${file} (mode 600). Give it to the gateway as GATEWAY_CASH_SECRET_TOKENS, restart it, then ` +
      '`paykit cash webhook update <id> --url <same url>` to send the activation test again.',
  );
}

export async function cashWebhookGet(ctx: Context): Promise<void> {
  ctx.out.result(await (await ctx.cash()).webhooks.getActive());
}

export async function cashWebhookUpdate(ctx: Context, id: string, options: { url: string }): Promise<void> {
  const n = Number(id);
  if (!Number.isSafeInteger(n)) throw new UsageError(`The cash webhook id is a number (got "${id}").`);
  ctx.out.result(await (await ctx.cash()).webhooks.update(n, options.url));
}

export async function remittanceReceive(ctx: Context, options: { file: string }): Promise<void> {
  let body: unknown;
  try {
    body = JSON.parse(readFileSync(options.file, 'utf8')) as unknown;
  } catch (error) {
    throw new UsageError(
      `--file ${options.file}: ${(error as Error).message.slice(0, 160)} (a JSON receive request: partner_transaction_session_id, amount, currency, …).`,
    );
  }
  const remittance = await ctx.remittance();
  ctx.out.result(await remittance.receive(body as Parameters<typeof remittance.receive>[0]));
}

export async function bearerAccount(ctx: Context, product: 'billpay' | 'gift-cards' | 'lottery'): Promise<void> {
  const token = await ctx.bearerToken(product);
  const common = {
    environment: ctx.environment,
    baseUrl: ctx.baseUrl(product, ctx.profile[product === 'gift-cards' ? 'giftCards' : product]?.baseUrl),
    token,
    fetch: ctx.fetch,
  };
  if (product === 'billpay')
    ctx.out.result(await (await import('@paykit/billpay-client')).createBillpayClient(common).account.get());
  else if (product === 'gift-cards')
    ctx.out.result(await (await import('@paykit/gift-cards-client')).createGiftCardsClient(common).account.get());
  else ctx.out.result(await (await import('@paykit/lottery-client')).createLotteryClient(common).account.get());
}
