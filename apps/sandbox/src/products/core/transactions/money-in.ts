// An external SPEI credit arriving at a platform CLABE: booked LIQUIDATED, announced by MONEY_IN
// SPEI_CREDIT, and refunded to its payer when the receiver answers 422 with a refundReason.
import type { IncomingSpei } from '@paykit/contracts';
import { ControlError } from '../../../control/errors.ts';
import type { Answer } from '../../../deliveries.ts';
import type { CoreService } from '../index.ts';
import type { Transaction } from '../state.ts';
import {
  accountOf,
  addToBalance,
  INTERNAL_INSTITUTION,
  instrumentOf,
  isCurrent,
  newTrackingKey,
  newTransaction,
  parseAmount,
  touch,
} from './common.ts';
import { emitMoneyIn, emitRefund } from './events.ts';

/**
 * Control API. 404 when no instrument has the CLABE; sandbox choice: 409 when it cannot receive
 * (an external instrument without a platform account, a DELETED or BLOCKED instrument, a
 * BLOCKED or CANCELLED account).
 */
export function incomingSpei(core: CoreService, input: IncomingSpei): { transactionId: string; trackingKey: string } {
  const instrument = core.state.instrumentByClabe(input.beneficiaryClabe);
  if (!instrument) {
    throw new ControlError(
      404,
      `No instrument has CLABE ${input.beneficiaryClabe}.`,
      'Use a CLABE of the seed (GET /_sandbox/seed) or add an instrument with POST /_sandbox/seed.',
    );
  }
  const account = accountOf(core, instrument);
  if (!account)
    throw new ControlError(
      409,
      `CLABE ${input.beneficiaryClabe} is an external instrument: SPEI credits arrive only at accounts on the platform.`,
    );
  if (instrument.status !== 'ACTIVE')
    throw new ControlError(
      409,
      `The instrument with CLABE ${input.beneficiaryClabe} is ${instrument.status}: it cannot receive.`,
    );
  if (account.status !== 'ACTIVE')
    throw new ControlError(
      409,
      `The account of CLABE ${input.beneficiaryClabe} is ${account.status}: it cannot receive.`,
    );

  const amount = parseAmount(input.amount);
  const credit = newTransaction(core, {
    clientId: instrument.clientId,
    bankId: instrument.bankId,
    kind: 'MONEY_IN',
    externalReference: input.numericReference,
    trackingId: newTrackingKey(core, 'EXT'),
    description: input.paymentConcept,
    amountCentavos: amount,
    category: 'CREDIT_TRANS',
    subCategory: 'SPEI_CREDIT',
    status: 'LIQUIDATED',
    sourceInstrumentId: undefined,
    destinationInstrumentId: instrument.id,
    payer: {
      account: input.payerAccount,
      name: input.payerName,
      rfc: input.payerRfc,
      institution: input.payerInstitution,
      concept: input.paymentConcept,
      numericReference: input.numericReference,
    },
  });
  account.balanceCentavos += amount;
  emitMoneyIn(core, credit, { onAnswer: (answer) => refundIfRefused(core, credit, answer) });
  return { transactionId: credit.id, trackingKey: credit.trackingId };
}

/** The refundReason of a receiver's 422 JSON answer, if it carries one. */
function refundReasonOf(answer: Answer): string | undefined {
  if (answer.status !== 422) return undefined;
  try {
    const body: unknown = JSON.parse(answer.body);
    const reason =
      body !== null && typeof body === 'object' ? (body as { refundReason?: unknown }).refundReason : undefined;
    return typeof reason === 'string' && reason.trim() !== '' ? reason : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A 422 with refundReason refunds the credit to its payer, once (duplicate deliveries answer
 * again). sandbox choices: a 422 without refundReason refunds nothing; the refund transaction
 * is DEBIT_TRANS / SPEI_REFUNDED_DEBIT (the money leaves the client's account), LIQUIDATED at
 * once, its description the refundReason; the beneficiary account is debited back. When the
 * account no longer holds the amount, no refund is made (a balance never goes negative).
 */
function refundIfRefused(core: CoreService, credit: Transaction, answer: Answer): void {
  const reason = refundReasonOf(answer);
  const beneficiary = instrumentOf(core, credit.destinationInstrumentId);
  const payer = credit.payer;
  if (reason === undefined || !isCurrent(core, credit) || credit.status === 'REFUNDED' || !beneficiary || !payer)
    return;
  // A balance never goes negative. A late 422 for money already spent gets no refund (refunds are
  // never partial): the credit stays LIQUIDATED, and its reason says why the refund was not made.
  const account = accountOf(core, beneficiary);
  if (account && account.balanceCentavos < credit.amountCentavos) {
    credit.reason = {
      code: 'REFUND_NOT_MADE_INSUFFICIENT_FUNDS',
      description: `The receiver refused the credit (${reason}), but the account no longer holds its amount: no refund was made, so the balance does not go negative.`,
    };
    touch(core, credit);
    return;
  }
  const refund = newTransaction(core, {
    clientId: credit.clientId,
    bankId: credit.bankId,
    kind: 'REFUND',
    externalReference: credit.externalReference,
    trackingId: newTrackingKey(core, 'RF'),
    description: reason,
    amountCentavos: credit.amountCentavos,
    category: 'DEBIT_TRANS',
    subCategory: 'SPEI_REFUNDED_DEBIT',
    status: 'LIQUIDATED',
    sourceInstrumentId: beneficiary.id,
    destinationInstrumentId: undefined,
    originalTransactionId: credit.id,
    reason: { code: 'REFUSED_BY_RECEIVER', description: reason },
    payer,
  });
  credit.status = 'REFUNDED';
  credit.refundTransactionId = refund.id;
  touch(core, credit);
  addToBalance(core, beneficiary, -credit.amountCentavos);
  emitRefund(core, refund, credit, {
    beneficiary: { account: payer.account, name: payer.name, rfc: payer.rfc },
    payer: {
      account: beneficiary.clabe,
      name: beneficiary.holderName,
      rfc: beneficiary.rfc,
      institution: INTERNAL_INSTITUTION,
    },
  });
}
