// What a ledger ended up holding, as one comparable value: the bench checks that the naive applier
// and reconcileOnce produce the same ledger from the same events, so the speed-up is not bought
// by doing less.
import type { Queryable } from '@paykit/store';

const PARTS = {
  outbound: `SELECT count(*)::text || ':' || md5(coalesce(string_agg(concat_ws('|', transaction_id, status, status_reason, status_at, ownership, cep_status), ',' ORDER BY transaction_id), '')) FROM ledger_outbound`,
  receivables: `SELECT count(*)::text || ':' || md5(coalesce(string_agg(concat_ws('|', credit_id, state, receivable_id, applied), ',' ORDER BY credit_id), '')) FROM ledger_credit_matches`,
  // The books net per item, account and value day (the postings themselves differ in how they were grouped).
  journal: `SELECT count(*)::text || ':' || md5(coalesce(string_agg(concat_ws('|', item, account, value_date, amount), ',' ORDER BY item, account, value_date), ''))
            FROM (SELECT item, account, value_date, sum(amount) AS amount FROM ledger_journal GROUP BY 1, 2, 3 HAVING sum(amount) <> 0) j`,
  statusHistory: 'SELECT count(*)::text FROM ledger_status_history',
  cepResults: 'SELECT count(*)::text FROM ledger_cep_results',
  credits: `SELECT count(*)::text || ':' || md5(coalesce(string_agg(concat_ws('|', transaction_id, amount, transaction_at), ',' ORDER BY transaction_id), '')) FROM ledger_credits`,
  refunds: `SELECT count(*)::text || ':' || md5(coalesce(string_agg(concat_ws('|', transaction_id, amount, original_transaction_id), ',' ORDER BY transaction_id), '')) FROM ledger_refunds`,
  unapplied:
    'SELECT count(*)::text FROM webhook_events e WHERE NOT EXISTS (SELECT 1 FROM webhook_events_applied a WHERE a.seq = e.seq)',
  parked: 'SELECT count(*)::text FROM ledger_parked_events',
} as const;

export type Fingerprint = Record<keyof typeof PARTS, string>;

export async function ledgerFingerprint(db: Queryable): Promise<Fingerprint> {
  const entries = await Promise.all(
    Object.entries(PARTS).map(async ([name, sql]) => {
      const { rows } = await db.query<{ value: string }>(`SELECT (${sql}) AS value`);
      return [name, rows[0]!.value] as const;
    }),
  );
  return Object.fromEntries(entries) as Fingerprint;
}

/** The parts that differ, named; empty when the ledgers agree. */
export function fingerprintDifferences(a: Fingerprint, b: Fingerprint): string[] {
  return (Object.keys(a) as Array<keyof Fingerprint>)
    .filter((key) => a[key] !== b[key])
    .map((key) => `${key}: ${a[key]} ≠ ${b[key]}`);
}
