// Penny validation: a 0.01 MXN transfer to the destination instrument and the CEP lookup it
// starts, which moves on the sandbox clock (INITIALIZED → PENDING → outcome) unless the control
// API decides first (DELAYED, COMPLETED, FAILED).
import type { CepOutcome } from '@paykit/contracts';
import type { zCreatePennyValidationBody } from '@paykit/core-client/zod';
import type * as z from 'zod';
import { ControlError } from '../../../control/errors.ts';
import type { Caller } from '../auth/caller.ts';
import { CoreHttpError } from '../errors.ts';
import type { CoreService } from '../index.ts';
import type { Transaction } from '../state.ts';
import { requireCallerClient, requireFunds, resolveDestination, resolveSource } from './checks.ts';
import { addToBalance, cancelSteps, newTrackingKey, newTransaction, scheduleStep, touch } from './common.ts';
import { emitCep } from './events.ts';

export type PennyValidationInput = z.output<typeof zCreatePennyValidationBody>;

/** The reference's penny: 0.01 MXN. */
const PENNY_CENTAVOS = 1n;
/** sandbox choice for "invalid description": blank, or longer than settings.core.descriptionMaxLength. */
export function checkDescription(description: string, maxLength: number): void {
  if (description.trim() === '' || description.length > maxLength) {
    throw new CoreHttpError(
      400,
      'DATA_ERROR',
      `Invalid description: 1 to ${maxLength} characters (it is the SPEI payment concept).`,
    );
  }
}

/**
 * "unsupported currency or amount rule": the body has no currency or amount of its own, but
 * one that is sent must be MXN and 0.01 (sandbox choice: rejected rather than ignored).
 */
function checkPennyRules(input: PennyValidationInput, descriptionMaxLength: number): void {
  checkDescription(input.description, descriptionMaxLength);
  const { currency, amount } = input as { currency?: unknown; amount?: unknown };
  if (currency !== undefined && currency !== 'MXN')
    throw new CoreHttpError(400, 'DATA_ERROR', 'Unsupported currency: a penny validation is in MXN.');
  if (amount !== undefined && amount !== '0.01' && amount !== 0.01)
    throw new CoreHttpError(400, 'DATA_ERROR', 'Amount rule: a penny validation is always 0.01 MXN.');
}

/**
 * Creates the penny validation. sandbox choices: the penny leaves the source account's
 * balance (and reaches a platform destination's); subCategory follows money_out's routing
 * (INT_DEBIT to a platform instrument, SPEI_DEBIT otherwise); no STATUS_UPDATE is sent for it.
 */
export function createPennyValidation(core: CoreService, caller: Caller, input: PennyValidationInput): Transaction {
  checkPennyRules(input, core.runtime.settings.core.descriptionMaxLength);
  requireCallerClient(caller, input.client_id);
  const { instrument: source, account } = resolveSource(core, caller, input.source_instrument_id);
  const destination = resolveDestination(core, caller, input.destination_instrument_id, source.id);
  requireFunds(account, PENNY_CENTAVOS);

  account.balanceCentavos -= PENNY_CENTAVOS;
  addToBalance(core, destination, PENNY_CENTAVOS);
  const now = core.runtime.clock.nowMs();
  const tx = newTransaction(core, {
    clientId: caller.clientId,
    bankId: source.bankId,
    kind: 'PENNY_VALIDATION',
    externalReference: input.external_reference,
    trackingId: newTrackingKey(core, 'PK'),
    description: input.description,
    amountCentavos: PENNY_CENTAVOS,
    category: 'DEBIT_TRANS',
    subCategory: core.state.isPlatformInstrument(destination) ? 'INT_DEBIT' : 'SPEI_DEBIT',
    status: 'INITIALIZED',
    sourceInstrumentId: source.id,
    destinationInstrumentId: destination.id,
    cep: {
      validationId: core.runtime.random.uuid(),
      status: 'INITIALIZED',
      beneficiaryName: destination.holderName,
      beneficiaryRfc: destination.rfc === '' ? null : destination.rfc,
      createdAtMs: now,
      processedAtMs: null,
    },
  });
  // INITIALIZED sends no event; the lookup reports from PENDING on.
  scheduleStep(core, tx, core.runtime.settings.core.cepPendingAfterSeconds, 'cep pending', () => {
    moveLookup(core, tx, 'PENDING');
    scheduleOutcome(core, tx);
  });
  return tx;
}

function scheduleOutcome(core: CoreService, tx: Transaction): void {
  scheduleStep(core, tx, core.runtime.settings.core.cepOutcomeAfterSeconds, 'cep outcome', () =>
    moveLookup(core, tx, core.runtime.settings.core.cepDefaultOutcome),
  );
}

/**
 * One step of the lookup; a CEP event on every change. sandbox choice: the transaction's own
 * status follows the lookup (IN_PROGRESS while PENDING or DELAYED, LIQUIDATED once it has an
 * outcome, COMPLETED or FAILED: the penny was sent either way).
 */
function moveLookup(core: CoreService, tx: Transaction, status: 'PENDING' | 'DELAYED' | 'COMPLETED' | 'FAILED'): void {
  const cep = tx.cep;
  if (!cep || cep.status === status) return;
  const now = core.runtime.clock.nowMs();
  cep.status = status;
  if (status === 'COMPLETED' || status === 'FAILED') {
    cep.processedAtMs = now;
    if (status === 'COMPLETED') cep.cepUrl = `${core.runtime.settings.core.cepUrlBase}${cep.validationId}.pdf`;
    tx.status = 'LIQUIDATED';
  } else {
    tx.status = 'IN_PROGRESS';
  }
  touch(core, tx);
  emitCep(core, tx);
}

/**
 * Control API: DELAYED keeps the lookup pending (the outcome is rescheduled
 * cepOutcomeAfterSeconds from now); COMPLETED or FAILED end it now. A name or RFC override
 * lets a test simulate an ownership mismatch.
 */
export function cepOutcome(core: CoreService, transactionId: string, input: CepOutcome): { status: string } {
  const tx = core.state.transactions.get(transactionId);
  if (!tx || tx.kind !== 'PENNY_VALIDATION' || !tx.cep) {
    throw new ControlError(
      404,
      `No penny validation ${transactionId}.`,
      'Use the id returned by POST /core/v1/transactions/penny_validation.',
    );
  }
  if (tx.cep.status === 'COMPLETED' || tx.cep.status === 'FAILED') {
    throw new ControlError(
      409,
      `The CEP lookup of ${transactionId} already ended ${tx.cep.status}.`,
      'Create a new penny validation.',
    );
  }
  if (input.beneficiaryName !== undefined) tx.cep.beneficiaryName = input.beneficiaryName;
  if (input.beneficiaryRfc !== undefined) tx.cep.beneficiaryRfc = input.beneficiaryRfc;
  cancelSteps(core, tx);
  moveLookup(core, tx, input.status);
  if (input.status === 'DELAYED') scheduleOutcome(core, tx);
  return { status: tx.cep.status };
}
