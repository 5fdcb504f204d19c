// The sandbox's control API (like `stripe trigger`): platform-side events on demand, its clock and
// its faults. Only with a sandbox profile.
import { sandboxControl } from '@paykit/contracts';
import { initClient } from '@ts-rest/core';
import type { Context } from '../cli/context.ts';
import { CliError, UsageError } from '../cli/errors.ts';
import { Amount, Clabe, Reference, WholePesos, flag, optionalFlag } from '../cli/input.ts';

function control(ctx: Context) {
  return initClient(sandboxControl, { baseUrl: ctx.sandboxUrl() });
}

/** A control answer's body, or the sandbox's own explanation as the error. */
function bodyOf<T>(answer: { status: number; body: unknown }, what: string): T {
  if (answer.status === 200) return answer.body as T;
  const problem = answer.body as { error?: string; hint?: string } | undefined;
  throw new CliError(
    `${what}: the sandbox answered ${answer.status}${problem?.error ? `: ${problem.error}` : ''}`,
    problem?.hint,
  );
}

export const TRIGGERS = [
  'money-in',
  'cep',
  'spei-settle',
  'spei-reject',
  'spei-reverse',
  'cash-paid',
  'cash-expired',
  'cash-reversed',
  'report',
] as const;
export type Trigger = (typeof TRIGGERS)[number];

export interface TriggerOptions {
  clabe?: string;
  amount?: string;
  payerAccount?: string;
  concept?: string;
  reference?: string;
  status?: string;
  reason?: string;
  fileType?: string;
  period?: string;
  clientId?: string;
}

export async function trigger(
  ctx: Context,
  name: string,
  id: string | undefined,
  options: TriggerOptions,
): Promise<void> {
  const c = control(ctx);
  const need = (what: string) => {
    if (!id) throw new UsageError(`paykit trigger ${name} needs ${what}.`);
    return id;
  };
  switch (name as Trigger) {
    case 'money-in': {
      if (!options.clabe || !options.amount)
        throw new UsageError('paykit trigger money-in needs --clabe (18 digits) and --amount (e.g. 1500.00).');
      flag(Clabe, '--clabe', options.clabe);
      flag(Amount, '--amount', options.amount);
      optionalFlag(Clabe, '--payer-account', options.payerAccount);
      optionalFlag(Reference, '--reference', options.reference);
      const body = {
        beneficiaryClabe: options.clabe,
        amount: options.amount,
        ...(options.payerAccount ? { payerAccount: options.payerAccount } : {}),
        ...(options.concept ? { paymentConcept: options.concept } : {}),
        ...(options.reference ? { numericReference: options.reference } : {}),
      };
      return ctx.out.result(bodyOf(await c.triggerIncomingSpei({ body: body as never }), 'money-in'));
    }
    case 'cep': {
      const status = (options.status ?? 'COMPLETED').toUpperCase();
      if (!['DELAYED', 'COMPLETED', 'FAILED'].includes(status))
        throw new UsageError('--status must be DELAYED, COMPLETED or FAILED.');
      return ctx.out.result(
        bodyOf(
          await c.triggerCepOutcome({
            params: { transactionId: need('the penny validation transaction id') },
            body: { status: status as 'COMPLETED' },
          }),
          'cep',
        ),
      );
    }
    case 'spei-settle':
      return ctx.out.result(
        bodyOf(
          await c.triggerSpeiSettle({ params: { transactionId: need('the transfer id') }, body: {} }),
          'spei-settle',
        ),
      );
    case 'spei-reject': {
      const status = (options.status ?? 'REJECTED').toUpperCase();
      if (!['REJECTED', 'CANCELLED', 'DECLINED'].includes(status))
        throw new UsageError('--status must be REJECTED, CANCELLED or DECLINED.');
      return ctx.out.result(
        bodyOf(
          await c.triggerSpeiReject({
            params: { transactionId: need('the transfer id') },
            body: { status: status as 'REJECTED', ...(options.reason ? { reason: options.reason } : {}) } as never,
          }),
          'spei-reject',
        ),
      );
    }
    case 'spei-reverse':
      return ctx.out.result(
        bodyOf(
          await c.triggerSpeiReverse({ params: { transactionId: need('the transfer id') }, body: {} }),
          'spei-reverse',
        ),
      );
    case 'cash-paid':
    case 'cash-expired':
    case 'cash-reversed': {
      const operationId = Number(need('the cash operation id'));
      if (!Number.isSafeInteger(operationId)) throw new UsageError(`The cash operation id is a number (got "${id}").`);
      const status = name.slice('cash-'.length) as 'paid' | 'expired' | 'reversed';
      return ctx.out.result(
        bodyOf(await c.setCashOperationStatus({ params: { operationId }, body: { status } }), name),
      );
    }
    case 'report': {
      const clientId = options.clientId ?? (await ctx.seed()).core.clients[0]!.clientId;
      const body = {
        clientId,
        ...(options.fileType ? { fileType: options.fileType.toUpperCase() } : {}),
        ...(options.period ? { period: options.period.toUpperCase() } : {}),
      };
      return ctx.out.result(bodyOf(await c.triggerReport({ body: body as never }), 'report'));
    }
    default:
      throw new UsageError(`Unknown trigger "${name}": one of ${TRIGGERS.join(', ')}.`);
  }
}

export async function cashOperation(
  ctx: Context,
  options: { type?: string; amount?: string; user?: string; open?: boolean },
): Promise<void> {
  const type = options.type ?? 'cash_in';
  if (type !== 'cash_in' && type !== 'cash_out') throw new UsageError('--type must be cash_in or cash_out.');
  if (options.amount === undefined) throw new UsageError('--amount is required: whole pesos, e.g. 250.');
  const amount = Number(flag(WholePesos, '--amount', options.amount));
  ctx.out.result(
    bodyOf(
      await control(ctx).createCashOperation({
        body: { type, amount, externalUserId: options.user ?? 'cli-user', closedReference: !options.open },
      }),
      'cash operation',
    ),
  );
}

export async function clockAdvance(ctx: Context, seconds: string): Promise<void> {
  const n = Number(seconds);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`SECONDS must be a positive number (got "${seconds}").`);
  ctx.out.result(bodyOf(await control(ctx).advanceClock({ body: { seconds: n } }), 'clock advance'));
}

export async function faults(
  ctx: Context,
  options: { latencyMs?: string; errorRate?: string; duplicates?: string; reorder?: boolean; reset?: boolean },
): Promise<void> {
  const c = control(ctx);
  const current = bodyOf<{
    api: { latencyMs: number; errorRate: number };
    deliveries: { duplicates: { min: number; max: number }; reorder: boolean; delayMs: number };
  }>(await c.getFaults(), 'faults');
  const changes =
    options.reset ||
    options.latencyMs !== undefined ||
    options.errorRate !== undefined ||
    options.duplicates !== undefined ||
    options.reorder !== undefined;
  if (!changes) return ctx.out.result(current);
  const next = options.reset
    ? {
        api: { latencyMs: 0, errorRate: 0 },
        deliveries: { duplicates: { min: 1, max: 1 }, reorder: false, delayMs: 0 },
      }
    : structuredClone(current);
  if (options.latencyMs !== undefined) next.api.latencyMs = Number(options.latencyMs);
  if (options.errorRate !== undefined) next.api.errorRate = Number(options.errorRate);
  if (options.duplicates !== undefined) {
    const match = /^(\d)(?:-(\d))?$/.exec(options.duplicates);
    if (!match) throw new UsageError('--duplicates is MIN or MIN-MAX copies of each delivery (1 to 5), e.g. 1-3.');
    next.deliveries.duplicates = { min: Number(match[1]), max: Number(match[2] ?? match[1]) };
  }
  if (options.reorder !== undefined) next.deliveries.reorder = options.reorder;
  const answer = await c.setFaults({ body: next });
  if (answer.status !== 200)
    throw new UsageError(
      `The sandbox refused these faults (${answer.status}): check --latency-ms (0–60000), --error-rate (0–1) and --duplicates (1–5).`,
    );
  ctx.out.result(answer.body);
}
