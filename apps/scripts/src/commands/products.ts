// Direct debit, cash, remittance and the three bearer-token products.
import { createWriteStream, readFileSync } from 'node:fs';
import { once } from 'node:events';
import type { Context } from '../cli/context.ts';
import { UsageError } from '../cli/errors.ts';
import { Count, flag } from '../cli/input.ts';
import { progress } from '../cli/progress.ts';
import { rememberSecret } from '../cli/secrets.ts';
import { maskSecret, redactBody } from '@paykit/runtime';
import { defaultTokenDir, storeSecretFile } from './core.ts';

export async function customersCreate(ctx: Context, options: { name: string; documentType: string; documentNumber: string; email?: string; phone?: string }): Promise<void> {
  const dd = await ctx.directDebit();
  const body = { name: options.name, document_type: options.documentType, document_number: options.documentNumber, email: options.email, phone: options.phone };
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

export async function instrumentsExport(ctx: Context, options: { format?: string; out?: string; limit?: string }): Promise<void> {
  const format = options.format ?? 'jsonl';
  if (format !== 'csv' && format !== 'jsonl') throw new UsageError('--format must be csv or jsonl.');
  if (!options.out) throw new UsageError('--out FILE is required (the export can be large).');
  const dd = await ctx.directDebit();
  const file = createWriteStream(options.out, { flags: 'w' });
  const bar = progress(`exporting to ${options.out}`, { enabled: !ctx.out.json });
  let columns: string[] | undefined;
  let count = 0;
  const write = async (line: string) => {
    if (!file.write(line)) await once(file, 'drain');
  };
  for await (const page of dd.instruments.pages({ limit: limitOf(options.limit) ?? 500 })) {
    for (const instrument of page.instruments) {
      // Card numbers to their last 4 digits, as on screen: an export is output too.
      const record = redactBody(instrument) as Record<string, unknown>;
      if (format === 'jsonl') await write(`${JSON.stringify(record)}\n`);
      else {
        if (!columns) {
          columns = Object.keys(record);
          await write(`${columns.join(',')}\n`);
        }
        await write(`${columns.map((key) => csvCell(record[key])).join(',')}\n`);
      }
      count++;
    }
    bar.tick(page.instruments.length);
  }
  file.end();
  await once(file, 'finish');
  bar.done(`${count} instruments`);
  ctx.out.result({ file: options.out, format, instruments: count });
}

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const raw = typeof value === 'object' ? JSON.stringify(value) : String(value);
  // A leading = + - @ (or their full-width forms), tab or carriage return is neutralised so a spreadsheet never runs a field as a formula.
  const text = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/.test(raw) && !/^-?\d+(\.\d+)?$/.test(raw) ? `'${raw}` : raw;
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
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
    throw new UsageError(`--file ${options.file}: ${(error as Error).message.slice(0, 160)} (a JSON receive request: partner_transaction_session_id, amount, currency, …).`);
  }
  const remittance = await ctx.remittance();
  ctx.out.result(await remittance.receive(body as Parameters<typeof remittance.receive>[0]));
}

export async function bearerAccount(ctx: Context, product: 'billpay' | 'gift-cards' | 'lottery'): Promise<void> {
  const token = await ctx.bearerToken(product);
  const common = { environment: ctx.environment, baseUrl: ctx.baseUrl(product, ctx.profile[product === 'gift-cards' ? 'giftCards' : product]?.baseUrl), token, fetch: ctx.fetch };
  if (product === 'billpay') ctx.out.result(await (await import('@paykit/billpay-client')).createBillpayClient(common).account.get());
  else if (product === 'gift-cards') ctx.out.result(await (await import('@paykit/gift-cards-client')).createGiftCardsClient(common).account.get());
  else ctx.out.result(await (await import('@paykit/lottery-client')).createLotteryClient(common).account.get());
}
