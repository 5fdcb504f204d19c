// POST /v1/transactions/penny_validation, money_out and internal_transaction: bearer
// authenticated, bodies validated (penny validation with the generated schema, the transfers
// with the sandbox's own, their body not being shown), answered 200 with the CoreTransaction.
import {
  zCreateMoneyOutBody,
  zCreatePennyValidationBody,
  zCreatePennyValidationHeaders,
} from '@paykit/core-client/zod';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireBearer } from '../auth/caller.ts';
import { coreErrorBody, CoreHttpError } from '../errors.ts';
import type { CoreService } from '../index.ts';
import type { Ok, Schema } from '../spec.ts';
import type { Transaction } from '../state.ts';
import { bodyError } from '../transactions/checks.ts';
import { canonicalJson, claimIdempotencyKey, claimMoneyOutKey } from '../transactions/idempotency.ts';
import { createPennyValidation } from '../transactions/penny.ts';
import { renderTransaction } from '../transactions/render.ts';
import { createTransfer, rejectFlatBody, TransferBody } from '../transactions/transfer.ts';

/**
 * What money_out and internal_transaction answer. The spec documents only money_out's
 * subCategory (INT_DEBIT or SPEI_DEBIT) and leaves the rest open, and shows no body at all for
 * internal_transaction; sandbox choice: both answer the transfer's whole CoreTransaction.
 */
type TransferAnswer = Schema<'CoreTransaction'> & Ok<'createMoneyOut'>;

function renderTransfer(core: CoreService, tx: Transaction): TransferAnswer {
  const rendered = renderTransaction(core, tx);
  const { subCategory } = rendered;
  // createTransfer books nothing else; the check narrows the type for the spec's subCategory.
  if (subCategory !== 'INT_DEBIT' && subCategory !== 'SPEI_DEBIT')
    throw new CoreHttpError(500, 'INTERNAL', `Transfer ${tx.id} has sub-category ${subCategory}.`);
  return { ...rendered, subCategory };
}

function idempotencyKey(request: FastifyRequest): string | undefined {
  const raw = request.headers['idempotency-key'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined) return undefined;
  const parsed = zCreatePennyValidationHeaders.safeParse({ 'Idempotency-Key': value });
  if (!parsed.success)
    throw new CoreHttpError(
      400,
      'DATA_ERROR',
      'Malformed Idempotency-Key header: send a UUID (a deterministic UUID v5 of the request).',
    );
  return value;
}

export function registerTransactionRoutes(app: FastifyInstance, core: CoreService): void {
  app.post('/v1/transactions/penny_validation', async (request, reply) => {
    const caller = requireBearer(core.state, core.runtime.clock, request);
    const key = idempotencyKey(request);
    const parsed = zCreatePennyValidationBody.safeParse(request.body);
    if (!parsed.success) throw bodyError(parsed.error, request.body);
    const input = parsed.data;
    if (key === undefined)
      return reply
        .code(200)
        .send(
          renderTransaction(core, createPennyValidation(core, caller, input)) satisfies Ok<'createPennyValidation'>,
        );

    // Claimed before anything else runs, so a concurrent request with this key sees it in progress.
    const claim = claimIdempotencyKey(core.state, caller.clientId, key, canonicalJson(input));
    if (claim.kind === 'replay') {
      const tx = core.state.transactions.get(claim.transactionId);
      if (!tx) throw new CoreHttpError(500, 'INTERNAL', 'The transaction of this Idempotency-Key is gone.');
      return reply.code(200).send(renderTransaction(core, tx) satisfies Ok<'createPennyValidation'>);
    }
    try {
      const tx = createPennyValidation(core, caller, input);
      claim.done(tx.id);
      return reply.code(200).send(renderTransaction(core, tx) satisfies Ok<'createPennyValidation'>);
    } catch (error) {
      claim.release();
      throw error;
    }
  });

  // sandbox choice: both answer 200 (money_out's documented success code; internal_transaction's
  // is not shown); the deprecated internal_transaction behaves like money_out, routing included,
  // but honours no Idempotency-Key (none is documented for it).
  for (const [path, kind] of [
    ['/v1/transactions/money_out', 'MONEY_OUT'],
    ['/v1/transactions/internal_transaction', 'INTERNAL_TRANSACTION'],
  ] as const) {
    app.post(path, async (request, reply) => {
      const caller = requireBearer(core.state, core.runtime.clock, request);
      const key = kind === 'MONEY_OUT' ? idempotencyKey(request) : undefined;
      const transfer = (): { status: number; body: unknown } => {
        rejectFlatBody(request.body);
        const shape = zCreateMoneyOutBody.safeParse(request.body);
        if (!shape.success) throw bodyError(shape.error, request.body);
        const parsed = TransferBody.safeParse(request.body);
        if (!parsed.success) throw bodyError(parsed.error, request.body);
        return {
          status: 200,
          body: renderTransfer(core, createTransfer(core, caller, kind, parsed.data)) satisfies Ok<'createMoneyOut'> &
            Ok<'createInternalTransaction'>,
        };
      };
      if (key === undefined) {
        const answer = transfer();
        return reply.code(answer.status).send(answer.body);
      }
      // Claimed before anything else runs, so a near-simultaneous duplicate sees it in progress.
      const claim = claimMoneyOutKey(
        core.state,
        caller.clientId,
        key,
        canonicalJson(request.body ?? null),
        core.runtime.clock.nowMs(),
      );
      if (claim.kind === 'replay') return reply.code(claim.answer.status).send(claim.answer.body);
      let answer: { status: number; body: unknown };
      try {
        answer = transfer();
      } catch (error) {
        // The first error is kept for the key's TTL too, as the platform does.
        const failure =
          error instanceof CoreHttpError
            ? error
            : new CoreHttpError(500, 'INTERNAL', 'Unexpected error in the sandbox core service.');
        if (!(error instanceof CoreHttpError)) request.log.error({ err: error }, 'money_out failed');
        answer = {
          status: failure.status,
          body: coreErrorBody(failure.status, failure.reason, failure.message, failure.domain, failure.errorCode),
        };
      }
      claim.done(answer);
      return reply.code(answer.status).send(answer.body);
    });
  }
}
