// One-to-one matching of incoming credits to the receivables teams registered: same beneficiary
// CLABE, and the same amount or the same numeric reference. Preferred, in order: amount and
// reference, amount and concept, amount alone (earliest due date first), then reference alone — a
// credit matched by reference with another amount is a discrepancy the reconciliation reports.
// Candidates are locked (FOR UPDATE), so two workers cannot give one receivable two credits.
import type { Queryable } from '@paykit/store';

interface Candidate {
  credit_id: string;
  receivable_id: string;
  score: number;
  due_date: string;
}

/** Matches the given credits (just applied) or receivables (just registered) that are still open. */
export async function matchReceivables(
  tx: Queryable,
  scope: { creditIds: readonly string[] } | { receivableIds: readonly string[] },
): Promise<number> {
  const byCredits = 'creditIds' in scope;
  const { rows } = await tx.query<Candidate>(
    `SELECT c.transaction_id AS credit_id, r.id AS receivable_id, r.due_date::text AS due_date,
            (CASE WHEN r.amount = c.amount THEN 4 ELSE 0 END)
          + (CASE WHEN r.reference IS NOT NULL AND r.reference = c.numeric_reference THEN 2 ELSE 0 END)
          + (CASE WHEN r.concept IS NOT NULL AND lower(trim(r.concept)) = lower(trim(c.concept)) THEN 1 ELSE 0 END) AS score
     FROM ledger_credits c
     JOIN ledger_receivables r ON r.beneficiary_account = c.beneficiary_account AND r.credit_id IS NULL
      AND (r.amount = c.amount OR (r.reference IS NOT NULL AND r.reference = c.numeric_reference))
     WHERE ${byCredits ? 'c.transaction_id = ANY($1::text[])' : 'r.id = ANY($1::text[])'}
       AND c.gateway_outcome <> 'rejected'
       AND NOT EXISTS (SELECT 1 FROM ledger_receivables taken WHERE taken.credit_id = c.transaction_id)
     ORDER BY r.id
     FOR UPDATE OF r`,
    [byCredits ? scope.creditIds : scope.receivableIds],
  );
  if (rows.length === 0) return 0;
  rows.sort(
    (a, b) =>
      b.score - a.score ||
      a.due_date.localeCompare(b.due_date) ||
      a.receivable_id.localeCompare(b.receivable_id) ||
      a.credit_id.localeCompare(b.credit_id),
  );
  const usedCredits = new Set<string>();
  const usedReceivables = new Set<string>();
  const pairs: Array<[string, string]> = [];
  for (const row of rows) {
    if (usedCredits.has(row.credit_id) || usedReceivables.has(row.receivable_id)) continue;
    usedCredits.add(row.credit_id);
    usedReceivables.add(row.receivable_id);
    pairs.push([row.receivable_id, row.credit_id]);
  }
  const { rowCount } = await tx.query(
    `UPDATE ledger_receivables r SET credit_id = m.credit_id
     FROM unnest($1::text[], $2::text[]) AS m(id, credit_id)
     WHERE r.id = m.id AND r.credit_id IS NULL`,
    [pairs.map((pair) => pair[0]), pairs.map((pair) => pair[1])],
  );
  return rowCount;
}
