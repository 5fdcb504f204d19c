// money_out and the deprecated internal_transaction: one body, routed by the destination
// instrument (platform account → INT_DEBIT, booked internally; otherwise SPEI_DEBIT), then the
// transfer's lifecycle: settlement on the sandbox clock, and the control API's settle, reject
// and reverse.
import type { SpeiRejection } from '@paykit/contracts';
import * as z from 'zod';
import { ControlError } from '../../../control/errors.ts';
import type { Caller } from '../auth/caller.ts';
import { CoreHttpError } from '../errors.ts';
import type { CoreService } from '../index.ts';
import type { Instrument, Transaction } from '../state.ts';
import { requireCallerClient, requireFunds, resolveDestination, resolveSource } from './checks.ts';
import {
  AMOUNT_PATTERN,
  addToBalance,
  cancelSteps,
  INTERNAL_INSTITUTION,
  instrumentOf,
  newTrackingKey,
  newTransaction,
  parseAmount,
  scheduleStep,
  speiInstitution,
  touch,
} from './common.ts';
import { emitMoneyIn, emitRefund, emitStatusUpdate } from './events.ts';
import { checkDescription } from './penny.ts';

/**
 * The body of money_out and internal_transaction as the platform documents it (money_out's
 * reference page and the internal transactions guide): client_id, source_instrument_id,
 * destination_instrument_id (uuids) and `transaction_request` {amount (a decimal string with two
 * decimals, greater than 0), currency (MXN only), description (fewer than 40 characters),
 * external_reference (numeric, at most 7 digits)}. sandbox choices: description defaults to
 * "Transfer" and external_reference to "0000001" when omitted (the documentation does not say);
 * a top-level client_reference is returned as clientReference; other fields are ignored.
 */
export const TransferBody = z.looseObject({
  client_id: z.uuid(),
  source_instrument_id: z.uuid(),
  destination_instrument_id: z.uuid(),
  transaction_request: z.looseObject({
    amount: z.string().regex(AMOUNT_PATTERN, 'a decimal string with two decimals, e.g. "150.00"'),
    currency: z.literal('MXN', 'Transaction currency unsupported (only MXN)'),
    description: z.string().optional().default('Transfer'),
    external_reference: z
      .string()
      .regex(/^\d{1,7}$/, 'External reference should be numeric and have a maximum length of 7 digits')
      .optional()
      .default('0000001'),
  }),
  client_reference: z.string().optional(),
});
export type TransferInput = z.output<typeof TransferBody>;

function party(instrument: Instrument): { account: string; name: string; rfc: string } {
  return { account: instrument.clabe, name: instrument.holderName, rfc: instrument.rfc };
}

/**
 * A flat body (amount, currency, description, external_reference at the top level, as older
 * paykit clients sent it) has no `transaction_request`. sandbox choice: the answer the platform's
 * own validation gives a body without a required field, 400 MISSING_REQUIRED_FIELDS, naming the
 * field and where the money goes; nothing is booked.
 */
export function rejectFlatBody(body: unknown): void {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
  const fields = body as Record<string, unknown>;
  if (fields.transaction_request !== undefined) return;
  const flat = ['amount', 'currency', 'description', 'external_reference'].filter((name) => name in fields);
  throw new CoreHttpError(
    400,
    'MISSING_REQUIRED_FIELDS',
    `Missing required field(s): transaction_request.${flat.length > 0 ? ` ${flat.join(', ')} belong inside transaction_request: {"transaction_request": {"amount": "1.95", "currency": "MXN", "description": "...", "external_reference": "1234567"}}.` : ''}`,
  );
}

/**
 * Books the transfer: the source is debited at once (insufficient funds → 400), the
 * transaction starts IN_PROGRESS and settles on the clock. sandbox choice: a STATUS_UPDATE is
 * sent for IN_PROGRESS too (the transfer's first status), then for every change.
 */
export function createTransfer(
  core: CoreService,
  caller: Caller,
  kind: 'MONEY_OUT' | 'INTERNAL_TRANSACTION',
  input: TransferInput,
): Transaction {
  requireCallerClient(caller, input.client_id);
  const money = input.transaction_request;
  checkDescription(money.description, core.runtime.settings.core.descriptionMaxLength);
  const amount = parseAmount(money.amount);
  if (amount <= 0n) throw new CoreHttpError(400, 'DATA_ERROR', 'Transaction Amount must be higher than 0.');
  const { instrument: source, account } = resolveSource(core, caller, input.source_instrument_id);
  const destination = resolveDestination(core, caller, input.destination_instrument_id, source.id);
  requireFunds(account, amount);

  account.balanceCentavos -= amount;
  const internal = core.state.isPlatformInstrument(destination);
  const tx = newTransaction(core, {
    clientId: caller.clientId,
    bankId: source.bankId,
    kind,
    externalReference: money.external_reference,
    trackingId: newTrackingKey(core, 'PK'),
    description: money.description,
    amountCentavos: amount,
    category: 'DEBIT_TRANS',
    subCategory: internal ? 'INT_DEBIT' : 'SPEI_DEBIT',
    status: 'IN_PROGRESS',
    sourceInstrumentId: source.id,
    destinationInstrumentId: destination.id,
    ...(input.client_reference !== undefined ? { clientReference: input.client_reference } : {}),
  });
  emitStatusUpdate(core, tx);
  const settings = core.runtime.settings.core;
  const settleAfter = internal ? settings.internalSettleAfterSeconds : settings.speiSettleAfterSeconds;
  if (settleAfter !== null) scheduleStep(core, tx, settleAfter, 'settle', () => liquidate(core, tx));
  return tx;
}

/**
 * IN_PROGRESS → LIQUIDATED. An internal transfer credits the destination account here and,
 * unless it is a self-transfer (same client and same owner), books an INT_CREDIT for the
 * receiving owner's client and sends it a MONEY_IN (a 422 to it refunds nothing).
 * sandbox choice: the INT_CREDIT carries the debit's tracking key (both sides of one transfer).
 */
function liquidate(core: CoreService, tx: Transaction): void {
  if (tx.status !== 'IN_PROGRESS') return;
  cancelSteps(core, tx);
  tx.status = 'LIQUIDATED';
  touch(core, tx);
  emitStatusUpdate(core, tx);
  if (tx.subCategory !== 'INT_DEBIT') return;
  const source = instrumentOf(core, tx.sourceInstrumentId);
  const destination = instrumentOf(core, tx.destinationInstrumentId);
  if (!source || !destination) return;
  addToBalance(core, destination, tx.amountCentavos);
  if (destination.clientId === tx.clientId && destination.ownerId === source.ownerId) return;
  const credit = newTransaction(core, {
    clientId: destination.clientId,
    bankId: destination.bankId,
    kind: 'MONEY_IN',
    externalReference: tx.externalReference,
    trackingId: tx.trackingId,
    description: tx.description,
    amountCentavos: tx.amountCentavos,
    category: 'CREDIT_TRANS',
    subCategory: 'INT_CREDIT',
    status: 'LIQUIDATED',
    sourceInstrumentId: source.id,
    destinationInstrumentId: destination.id,
    payer: {
      ...party(source),
      institution: INTERNAL_INSTITUTION,
      concept: tx.description,
      numericReference: tx.externalReference,
    },
  });
  emitMoneyIn(core, credit);
}

function findTransfer(core: CoreService, transactionId: string): Transaction {
  const tx = core.state.transactions.get(transactionId);
  if (!tx || (tx.kind !== 'MONEY_OUT' && tx.kind !== 'INTERNAL_TRANSACTION')) {
    throw new ControlError(
      404,
      `No outbound transfer ${transactionId}.`,
      'Use the id returned by POST /core/v1/transactions/money_out (or internal_transaction).',
    );
  }
  return tx;
}

/** Control API: liquidates an IN_PROGRESS transfer now (sandbox choice: an internal one too). */
export function settleSpei(core: CoreService, transactionId: string): { status: string } {
  const tx = findTransfer(core, transactionId);
  if (tx.status !== 'IN_PROGRESS')
    throw new ControlError(
      409,
      `Transfer ${transactionId} is ${tx.status}; only an IN_PROGRESS transfer can be settled.`,
    );
  liquidate(core, tx);
  return { status: tx.status };
}

/** Control API: an IN_PROGRESS SPEI transfer is rejected, cancelled or declined; the source gets its money back. */
export function rejectSpei(core: CoreService, transactionId: string, input: SpeiRejection): { status: string } {
  const tx = findTransfer(core, transactionId);
  if (tx.subCategory !== 'SPEI_DEBIT')
    throw new ControlError(
      409,
      `Transfer ${transactionId} is ${tx.subCategory}: only a SPEI transfer travels the SPEI network.`,
    );
  if (tx.status !== 'IN_PROGRESS')
    throw new ControlError(
      409,
      `Transfer ${transactionId} is ${tx.status}; only an IN_PROGRESS transfer can be ${input.status}.`,
    );
  cancelSteps(core, tx);
  tx.status = input.status;
  tx.reason = { code: input.reason, description: input.reasonDescription };
  touch(core, tx);
  addToBalance(core, instrumentOf(core, tx.sourceInstrumentId), tx.amountCentavos);
  emitStatusUpdate(core, tx);
  return { status: tx.status };
}

/**
 * Control API: the network reverses a LIQUIDATED SPEI transfer. A refund transaction is booked
 * (sandbox choice: CREDIT_TRANS / SPEI_REFUNDED_CREDIT, since the money comes back to the
 * client; its source and destination are the original's, swapped), the original becomes
 * REFUNDED with refundTransactionId, the source is credited, then REFUND and the original's
 * STATUS_UPDATE (REFUNDED, reason REVERSED) are sent, in that order.
 */
export function reverseSpei(core: CoreService, transactionId: string): { refundTransactionId: string } {
  const original = findTransfer(core, transactionId);
  if (original.subCategory !== 'SPEI_DEBIT' || original.status !== 'LIQUIDATED') {
    throw new ControlError(
      409,
      `Transfer ${transactionId} is ${original.subCategory} ${original.status}; only a LIQUIDATED SPEI_DEBIT can be reversed.`,
    );
  }
  const source = instrumentOf(core, original.sourceInstrumentId);
  const destination = instrumentOf(core, original.destinationInstrumentId);
  if (!source || !destination)
    throw new ControlError(404, `The instruments of transfer ${transactionId} no longer exist.`);
  const reason = { code: 'REVERSED', description: 'The banking network reversed the transfer.' };
  const refund = newTransaction(core, {
    clientId: original.clientId,
    bankId: original.bankId,
    kind: 'REFUND',
    externalReference: original.externalReference,
    trackingId: newTrackingKey(core, 'RF'),
    description: original.description,
    amountCentavos: original.amountCentavos,
    category: 'CREDIT_TRANS',
    subCategory: 'SPEI_REFUNDED_CREDIT',
    status: 'LIQUIDATED',
    sourceInstrumentId: destination.id,
    destinationInstrumentId: source.id,
    originalTransactionId: original.id,
    reason,
  });
  original.status = 'REFUNDED';
  original.refundTransactionId = refund.id;
  original.reason = reason;
  touch(core, original);
  addToBalance(core, source, original.amountCentavos);
  emitRefund(core, refund, original, {
    beneficiary: party(source),
    payer: { ...party(destination), institution: speiInstitution(destination.clabe) },
  });
  emitStatusUpdate(core, original);
  return { refundTransactionId: refund.id };
}
