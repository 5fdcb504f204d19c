// What every core transaction module shares: money in centavos, tracking keys, institution
// codes, and looking transactions and instruments up safely after a reset.
import type { CoreService } from '../index.ts';
import { mexicoCityDate } from '../time.ts';
import type { Account, CoreState, Instrument, Transaction } from '../state.ts';

/** A core amount on the wire: a decimal string with two decimals (at most 15 integer digits). */
export const AMOUNT_PATTERN = /^\d{1,15}\.\d{2}$/;

/** "123.45" → 12345n. Only call with a string matching AMOUNT_PATTERN. */
export function parseAmount(amount: string): bigint {
  const [units = '0', cents = '00'] = amount.split('.');
  return BigInt(units) * 100n + BigInt(cents);
}

/** 12345n → "123.45" (never a float). */
export function formatAmount(centavos: bigint): string {
  const negative = centavos < 0n;
  const abs = negative ? -centavos : centavos;
  return `${negative ? '-' : ''}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
}

/**
 * sandbox choice: tracking keys are a prefix ('PK' for what the platform sends, 'EXT' for an
 * external bank's credit, 'RF' for a refund), the Mexico City date (YYYYMMDD) and 10 seeded
 * digits; unique among the sandbox's transactions.
 */
export function newTrackingKey(core: CoreService, prefix: 'PK' | 'EXT' | 'RF'): string {
  const date = mexicoCityDate(core.runtime.clock.nowMs()).replaceAll('-', '');
  // Kept beside the state (not scanned from it) so issuing a key stays O(1) however many transactions there are.
  let taken = trackingKeys.get(core.state);
  if (!taken) trackingKeys.set(core.state, (taken = new Set()));
  for (;;) {
    const key = `${prefix}${date}${core.runtime.random.digits(10)}`;
    if (!taken.has(key)) {
      taken.add(key);
      return key;
    }
  }
}
const trackingKeys = new WeakMap<CoreState, Set<string>>();

/**
 * sandbox choice: the SPEI institution code of a bank is '40' + the CLABE's 3-digit bank
 * prefix (40012 BBVA, 40072 Banorte), the code of the platform's own book '90646'.
 */
export const INTERNAL_INSTITUTION = '90646';
export function speiInstitution(clabe: string): string {
  return `40${clabe.slice(0, 3)}`;
}

/** A new transaction with the fields every kind shares filled in. */
export function newTransaction(
  core: CoreService,
  fields: Omit<Transaction, 'id' | 'createdAtMs' | 'updatedAtMs' | 'pendingTaskIds'>,
): Transaction {
  const now = core.runtime.clock.nowMs();
  const tx: Transaction = {
    id: core.runtime.random.uuid(),
    createdAtMs: now,
    updatedAtMs: now,
    pendingTaskIds: [],
    ...fields,
  };
  core.state.transactions.set(tx.id, tx);
  return tx;
}

/** Still the transaction the sandbox holds (a reset replaces the state; old lifecycle steps then do nothing). */
export function isCurrent(core: CoreService, tx: Transaction): boolean {
  return core.state.transactions.get(tx.id) === tx;
}

/** Runs a lifecycle step later on the sandbox clock, remembered on the transaction so a control call can cancel it. */
export function scheduleStep(
  core: CoreService,
  tx: Transaction,
  afterSeconds: number,
  label: string,
  step: () => void,
): void {
  const id = core.runtime.clock.after(afterSeconds * 1000, `core ${label} ${tx.id}`, () => {
    tx.pendingTaskIds = tx.pendingTaskIds.filter((t) => t !== id);
    if (isCurrent(core, tx)) step();
  });
  tx.pendingTaskIds.push(id);
}

export function cancelSteps(core: CoreService, tx: Transaction): void {
  for (const id of tx.pendingTaskIds) core.runtime.clock.cancel(id);
  tx.pendingTaskIds = [];
}

export function instrumentOf(core: CoreService, id: string | undefined): Instrument | undefined {
  return id === undefined ? undefined : core.state.instruments.get(id);
}

export function accountOf(core: CoreService, instrument: Instrument | undefined): Account | undefined {
  return instrument?.accountId === undefined ? undefined : core.state.accounts.get(instrument.accountId);
}

/** Moves a balance (centavos); accounts outside the platform have none to move. */
export function addToBalance(core: CoreService, instrument: Instrument | undefined, centavos: bigint): void {
  const account = accountOf(core, instrument);
  if (account) account.balanceCentavos += centavos;
}

export function touch(core: CoreService, tx: Transaction): void {
  tx.updatedAtMs = core.runtime.clock.nowMs();
}
