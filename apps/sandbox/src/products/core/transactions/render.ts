// A transaction as the API shows it: the camelCase CoreTransaction of specs/core.yaml.
import type { components } from '@paykit/core-client/paths';
import type { CoreService } from '../index.ts';
import type { Instrument, Transaction } from '../state.ts';
import { formatAmount, instrumentOf } from './common.ts';
import { isoMexicoCity } from '../time.ts';

type CoreTransaction = components['schemas']['CoreTransaction'];
type TransactionInstrument = components['schemas']['TransactionInstrument'];
type DataCep = components['schemas']['DataCep'];

/**
 * sandbox choice: the CLABE form's accountNumber ("without bank prefix") is the 11-digit
 * account part of the CLABE (digits 7 to 17: after the 3-digit bank and 3-digit plaza codes,
 * before the check digit).
 */
export function accountNumberOf(clabe: string): string {
  return clabe.slice(6, 17);
}

export function renderInstrument(instrument: Instrument): TransactionInstrument {
  return {
    id: instrument.id,
    bankId: instrument.bankId,
    clientId: instrument.clientId,
    ownerId: instrument.ownerId,
    instrumentAlias: instrument.alias,
    instrumentStatus: instrument.status,
    instrumentType: instrument.type,
    instrumentDetail: {
      accountNumber: accountNumberOf(instrument.clabe),
      clabeNumber: instrument.clabe,
      holderName: instrument.holderName,
    },
    rfc: instrument.rfc,
  };
}

/** metadata.dataCep: the CEP lookup of a penny validation; sandbox choice: `{}` for every other transaction (the schema requires the object). */
function renderDataCep(tx: Transaction): DataCep {
  const cep = tx.cep;
  if (!cep) return {};
  return {
    ...(cep.cepUrl ? { cepUrl: cep.cepUrl } : {}),
    validationId: cep.validationId,
    beneficiaryName: cep.beneficiaryName,
    // DataCep.beneficiaryRfc is a string: a holder without RFC leaves the field out.
    ...(cep.beneficiaryRfc !== null ? { beneficiaryRfc: cep.beneficiaryRfc } : {}),
    status: cep.status,
    createdAt: isoMexicoCity(cep.createdAtMs),
    processedAt: cep.processedAtMs === null ? null : isoMexicoCity(cep.processedAtMs),
  };
}

export function renderTransaction(core: CoreService, tx: Transaction): CoreTransaction {
  const source = instrumentOf(core, tx.sourceInstrumentId);
  const destination = instrumentOf(core, tx.destinationInstrumentId);
  return {
    id: tx.id,
    bankId: tx.bankId,
    clientId: tx.clientId,
    externalReference: tx.externalReference,
    trackingId: tx.trackingId,
    description: tx.description,
    amount: formatAmount(tx.amountCentavos),
    currency: 'MXN',
    category: tx.category,
    subCategory: tx.subCategory,
    transactionStatus: tx.status,
    audit: {
      createdAt: isoMexicoCity(tx.createdAtMs),
      updatedAt: isoMexicoCity(tx.updatedAtMs),
      deletedAt: null,
      blockedAt: null,
    },
    ...(source ? { sourceInstrument: renderInstrument(source) } : {}),
    ...(destination ? { destinationInstrument: renderInstrument(destination) } : {}),
    ...(tx.originalTransactionId ? { originalTransactionId: tx.originalTransactionId } : {}),
    ...(tx.refundTransactionId ? { refundTransactionId: tx.refundTransactionId } : {}),
    metadata: { dataCep: renderDataCep(tx) },
    ...(tx.clientReference !== undefined ? { clientReference: tx.clientReference } : {}),
  };
}
