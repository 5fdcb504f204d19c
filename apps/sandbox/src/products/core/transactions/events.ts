// The bodies of the transaction events (STATUS_UPDATE, CEP, MONEY_IN, REFUND), built from the
// sandbox's transactions and sent through ../webhooks/emit.ts to the client's active webhook.
import type { components } from '@paykit/core-client/paths';
import { emitEnvelopedEvent, type EmitOptions } from '../webhooks/emit.ts';
import type { CoreService } from '../index.ts';
import type { Transaction } from '../state.ts';
import { formatAmount, instrumentOf } from './common.ts';
import { isoMexicoCity, mexicoCityDate, mexicoCitySeconds } from '../time.ts';

type StatusUpdateBody = components['schemas']['StatusUpdateBody'];
type CepBody = components['schemas']['CepBody'];
type MoneyInBody = components['schemas']['MoneyInBody'];
type RefundBody = components['schemas']['RefundBody'];

/** One side of a money movement as events show it. */
export interface Party {
  account: string;
  name: string;
  rfc: string;
}

/**
 * STATUS_UPDATE of an outbound transfer. sandbox choices: message_type is "SPEI" for
 * SPEI_DEBIT and "INTERNAL" for INT_DEBIT; reason and reason_description are left out when
 * there is none (a rejection carries them); update_at is ISO 8601 with the -06:00 offset.
 */
export function emitStatusUpdate(core: CoreService, tx: Transaction): void {
  if (core.runtime.settings.core.statusUpdateForm === 'older') {
    // The older documented form: no id, no message_type, no reason; receivers match it by tracking key.
    const older: StatusUpdateBody = {
      tracking_key: tx.trackingId,
      status: tx.status,
      update_at: isoMexicoCity(tx.updatedAtMs),
    };
    emitEnvelopedEvent(core.runtime, core.state, tx.clientId, 'STATUS_UPDATE', older);
    return;
  }
  const body: StatusUpdateBody = {
    id: tx.id,
    tracking_key: tx.trackingId,
    message_type: tx.subCategory === 'INT_DEBIT' ? 'INTERNAL' : 'SPEI',
    ...(tx.reason ? { reason: tx.reason.code, reason_description: tx.reason.description } : {}),
    status: tx.status,
    update_at: isoMexicoCity(tx.updatedAtMs),
  };
  emitEnvelopedEvent(core.runtime, core.state, tx.clientId, 'STATUS_UPDATE', body);
}

/** CEP of a penny validation. sandbox choice: `id` is the penny validation's transaction id; processed_at is ISO 8601 with offset. */
export function emitCep(core: CoreService, tx: Transaction): void {
  const cep = tx.cep;
  const destination = instrumentOf(core, tx.destinationInstrumentId);
  if (!cep || cep.status === 'INITIALIZED' || !destination) return;
  const body: CepBody = {
    id: tx.id,
    tracking_key: tx.trackingId,
    beneficiary_account: destination.clabe,
    beneficiary_name: cep.beneficiaryName,
    beneficiary_rfc: cep.beneficiaryRfc,
    status: cep.status,
    processed_at: cep.processedAtMs === null ? null : isoMexicoCity(cep.processedAtMs),
  };
  emitEnvelopedEvent(core.runtime, core.state, tx.clientId, 'CEP', body);
}

/**
 * MONEY_IN transaction_date: compact `YYYYMMDD` (Mexico City day), as every full published
 * example writes it, or the field reference's `YYYY-MM-DD HH:MM:SS` (setting moneyInDateForm).
 */
function moneyInDate(core: CoreService, ms: number): string {
  return core.runtime.settings.core.moneyInDateForm === 'date-time'
    ? mexicoCitySeconds(ms)
    : mexicoCityDate(ms).replaceAll('-', '');
}

/** MONEY_IN of a credit transaction (SPEI_CREDIT or INT_CREDIT), to the receiving client. */
export function emitMoneyIn(core: CoreService, credit: Transaction, options: EmitOptions = {}): void {
  const beneficiary = instrumentOf(core, credit.destinationInstrumentId);
  const payer = credit.payer;
  if (!beneficiary || !payer) return;
  const body: MoneyInBody = {
    id: credit.id,
    beneficiary_account: beneficiary.clabe,
    beneficiary_name: beneficiary.holderName,
    beneficiary_rfc: beneficiary.rfc,
    payer_account: payer.account,
    payer_name: payer.name,
    payer_rfc: payer.rfc,
    payer_institution: payer.institution,
    amount: formatAmount(credit.amountCentavos),
    transaction_date: moneyInDate(core, credit.createdAtMs),
    tracking_key: credit.trackingId,
    payment_concept: payer.concept,
    numeric_reference: payer.numericReference,
    sub_category: credit.subCategory as MoneyInBody['sub_category'],
    registered_at: isoMexicoCity(credit.createdAtMs),
    owner_id: beneficiary.ownerId,
  };
  emitEnvelopedEvent(core.runtime, core.state, credit.clientId, 'MONEY_IN', body, options);
}

/**
 * REFUND: describes the refund transaction (money goes back from `payer` to `beneficiary`).
 * sandbox choices: amounts are decimal strings like MONEY_IN's, transaction_date has MONEY_IN's
 * layout, payment_concept is the refund transaction's description (the receiver's refundReason
 * for a refused MONEY_IN, the original concept for a reversal).
 */
export function emitRefund(
  core: CoreService,
  refund: Transaction,
  original: Transaction,
  sides: { beneficiary: Party; payer: Party & { institution: string } },
): void {
  const body: RefundBody = {
    id: refund.id,
    tracking_key: refund.trackingId,
    beneficiary_account: sides.beneficiary.account,
    beneficiary_name: sides.beneficiary.name,
    beneficiary_rfc: sides.beneficiary.rfc,
    payer_account: sides.payer.account,
    payer_name: sides.payer.name,
    payer_rfc: sides.payer.rfc,
    payer_institution: sides.payer.institution,
    amount: formatAmount(refund.amountCentavos),
    transaction_date: mexicoCitySeconds(refund.createdAtMs),
    category: refund.category,
    sub_category: refund.subCategory,
    payment_concept: refund.description,
    numeric_reference: refund.externalReference || null,
    original_transaction_id: original.id,
    original_transaction_tracking_id: original.trackingId,
    // Refunds are never partial: the same amount as the refund's.
    original_transaction_amount: formatAmount(original.amountCentavos),
  };
  emitEnvelopedEvent(core.runtime, core.state, refund.clientId, 'REFUND', body);
}
