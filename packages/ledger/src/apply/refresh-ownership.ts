// Writing the ownership decision of penny validations: the best CEP result of each (a final one
// first, then the latest) against the expected holder on the outbound record. Called when CEP
// events are applied and when a validation is recorded after its CEP arrived.
import type { Queryable } from '@paykit/store';
import { decideOwnership } from './ownership.ts';

interface Row {
  transaction_id: string;
  expected_holder: string | null;
  expected_rfc: string | null;
  cep_seq: string;
  cep_status: string;
  beneficiary_name: string | null;
  beneficiary_rfc: string | null;
}

export async function refreshOwnership(tx: Queryable, transactionIds: readonly string[]): Promise<void> {
  const { rows } = await tx.query<Row>(
    `SELECT o.transaction_id, o.expected_holder, o.expected_rfc, c.event_seq::text AS cep_seq, c.status AS cep_status, c.beneficiary_name, c.beneficiary_rfc
     FROM ledger_outbound o
     CROSS JOIN LATERAL (
       SELECT * FROM ledger_cep_results c WHERE c.transaction_id = o.transaction_id
       ORDER BY (c.status IN ('COMPLETED', 'FAILED')) DESC, c.event_seq DESC LIMIT 1
     ) c
     WHERE o.transaction_id = ANY($1::text[]) AND o.operation = 'penny_validation'
     ORDER BY o.transaction_id
     FOR UPDATE OF o`,
    [transactionIds],
  );
  if (rows.length === 0) return;
  const decided = rows.map((row) => ({
    row,
    ...decideOwnership(
      { name: row.expected_holder, rfc: row.expected_rfc },
      { status: row.cep_status, name: row.beneficiary_name, rfc: row.beneficiary_rfc },
    ),
  }));
  await tx.query(
    `UPDATE ledger_outbound o SET cep_status = d.status, cep_seq = d.seq, ownership = d.ownership, ownership_evidence = d.evidence
     FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::jsonb[]) AS d(id, status, seq, ownership, evidence)
     WHERE o.transaction_id = d.id`,
    [
      decided.map((d) => d.row.transaction_id),
      decided.map((d) => d.row.cep_status),
      decided.map((d) => d.row.cep_seq),
      decided.map((d) => d.ownership),
      decided.map((d) => JSON.stringify(d.evidence)),
    ],
  );
}
