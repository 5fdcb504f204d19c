// The deliveries the benchmark sends: signed MONEY_IN envelopes as the platform sends them for an
// external SPEI credit, each with a new id_msg and transaction id (a repeat would be deduplicated
// and measure less work), to one account the contender's database knows.
import { randomInt, randomUUID } from 'node:crypto';
import { clabeControlDigit, formatMexicoCityLocal } from '@paykit/domain';
import { postTarget, type Target } from './keep-alive.ts';

export interface BenchAccount {
  /** The beneficiary CLABE, seeded as ACTIVE before the gateway starts (unknown ones are refused with 422). */
  clabe: string;
  ownerId: string;
}

export const BENCH_ACCOUNT: BenchAccount = {
  clabe: '646180000000000012',
  ownerId: '7d3f4a52-0c1e-4b8a-9f0e-5a6b7c8d9e01',
};

// A payer at another bank (BBVA's 012); the control digit computed rather than typed.
const PAYER_FIRST17 = '01218000118359719';
const PAYER_CLABE = `${PAYER_FIRST17}${clabeControlDigit(PAYER_FIRST17)}`;

/** Where the deliveries go (a contender's MONEY_IN URL), each with the platform's bearer token and a JSON body. */
export function deliveryTarget(url: string, token: string): Target {
  return postTarget(url, { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' });
}

export interface Delivery {
  idMsg: string;
  body: string;
}

export function moneyInDelivery(account: BenchAccount, now: Date = new Date()): Delivery {
  const idMsg = randomUUID();
  const transactionId = randomUUID();
  const local = formatMexicoCityLocal(now); // "YYYY-MM-DD HH:MM:SS.ffffff", Mexico City
  // 1.00 to 99,999.99 MXN, built as text from whole centavos: money never passes through a float.
  const centavos = randomInt(100, 10_000_000);
  const amount = `${Math.floor(centavos / 100)}.${String(centavos % 100).padStart(2, '0')}`;
  const envelope = {
    id_msg: idMsg,
    msg_name: 'MONEY_IN',
    msg_date: local.slice(0, 10),
    body: {
      id: transactionId,
      beneficiary_account: account.clabe,
      beneficiary_name: 'Comercializadora del Bajío SA de CV',
      beneficiary_rfc: 'CBA200101AB1',
      payer_account: PAYER_CLABE,
      payer_name: 'Ana López Ruiz',
      payer_rfc: 'LORA800101AB1',
      payer_institution: '40012',
      amount,
      transaction_date: local.slice(0, 19),
      tracking_key: `BNCH${transactionId.replaceAll('-', '').slice(0, 22).toUpperCase()}`,
      payment_concept: 'Pago de factura',
      numeric_reference: '1234567',
      sub_category: 'SPEI_CREDIT',
      registered_at: `${local.slice(0, 10)}T${local.slice(11, 23)}-06:00`,
      owner_id: account.ownerId,
    },
  };
  return { idMsg, body: JSON.stringify(envelope) };
}
