// The baseline: the applier one would write first — one transaction per event, the event read into
// JavaScript and its effects written row by row with parameters. It has the same effects as
// reconcileOnce (the bench compares the two ledgers), so the ratio measures batching alone.
import { decideOwnership } from '@paykit/ledger';
import type { Database, Queryable } from '@paykit/store';

interface Claimed {
  seq: string;
  event_type: string;
  payload: {
    body?: Record<string, unknown>;
    file_name?: string;
    client_id?: string;
    file_type?: string;
    period?: string;
    created_at?: string;
  };
  received_at: Date;
  outcome: string;
  problem: string | null;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
/** MONEY_IN and REFUND transaction_date is Mexico City local time without an offset. */
const localTime = (value: unknown, fallback: Date): string =>
  typeof value === 'string' ? `${value}-06:00` : fallback.toISOString();

/**
 * Applies every waiting event, one transaction each; returns how many it applied. It runs alone,
 * so its claim simply starts above the last event it took (the row lock keeps it honest), and
 * marks the event applied the way the schema says (webhook_events_applied).
 */
export async function naiveApply(db: Database): Promise<number> {
  let applied = 0;
  let last = '0';
  for (;;) {
    const event = await db.transaction(async (tx) => {
      const { rows } = await tx.query<Claimed>(
        `SELECT e.seq::text AS seq, e.event_type, j.payload, e.received_at, e.outcome, ledger_event_problem(e.event_type, j.payload) AS problem
         FROM webhook_events e CROSS JOIN LATERAL (SELECT webhook_event_payload(e.raw_body, e.payload) AS payload) j
         WHERE e.seq > $1::bigint AND NOT EXISTS (SELECT 1 FROM webhook_events_applied a WHERE a.seq = e.seq AND a.seq > $1::bigint)
           AND NOT EXISTS (SELECT 1 FROM ledger_parked_events p WHERE p.seq = e.seq AND p.seq > $1::bigint AND NOT p.retry)
         ORDER BY e.seq LIMIT 1 FOR UPDATE OF e SKIP LOCKED`,
        [last],
      );
      const claimed = rows[0];
      if (!claimed) return undefined;
      if (claimed.problem !== null) {
        await tx.query(
          'INSERT INTO ledger_parked_events (seq, reason) VALUES ($1, $2) ON CONFLICT (seq) DO UPDATE SET reason = EXCLUDED.reason',
          [claimed.seq, claimed.problem],
        );
        return claimed;
      }
      await applyOne(tx, claimed);
      await tx.query('INSERT INTO webhook_events_applied (seq) VALUES ($1)', [claimed.seq]);
      await tx.query('DELETE FROM ledger_parked_events WHERE seq = $1', [claimed.seq]);
      return claimed;
    });
    if (!event) return applied;
    last = event.seq;
    if (event.problem === null) applied++;
  }
}

async function applyOne(tx: Queryable, event: Claimed): Promise<void> {
  const b = event.payload.body ?? {};
  switch (event.event_type) {
    case 'STATUS_UPDATE': {
      await tx.query(
        `INSERT INTO ledger_status_history (event_seq, transaction_id, tracking_key, status, reason, reason_description, updated_at, received_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (event_seq) DO NOTHING`,
        [
          event.seq,
          b.id,
          text(b.tracking_key),
          b.status,
          text(b.reason),
          text(b.reason_description),
          text(b.update_at),
          event.received_at,
        ],
      );
      await tx.query(
        `UPDATE ledger_outbound SET status = $2, status_rank = ledger_status_rank($2), status_reason = coalesce($3, $4), status_at = $5, status_seq = $6
         WHERE transaction_id = $1 AND ledger_status_rank($2) > status_rank`,
        [b.id, b.status, text(b.reason_description), text(b.reason), text(b.update_at), event.seq],
      );
      await post(tx, [`tx:${String(b.id)}`]);
      return;
    }
    case 'CEP': {
      const status = b.status === 'INITIALIZED' ? 'PENDING' : b.status;
      await tx.query(
        `INSERT INTO ledger_cep_results (event_seq, transaction_id, status, beneficiary_name, beneficiary_rfc, beneficiary_account, processed_at, received_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (event_seq) DO NOTHING`,
        [
          event.seq,
          b.id,
          status,
          text(b.beneficiary_name),
          text(b.beneficiary_rfc),
          text(b.beneficiary_account),
          text(b.processed_at),
          event.received_at,
        ],
      );
      await decideOne(tx, String(b.id));
      return;
    }
    case 'MONEY_IN': {
      const inserted = await tx.query(
        `INSERT INTO ledger_credits (transaction_id, event_seq, sub_category, beneficiary_account, payer_account, payer_name, amount, tracking_key,
                                     numeric_reference, concept, owner_id, transaction_at, gateway_outcome)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (transaction_id) DO NOTHING`,
        [
          b.id,
          event.seq,
          b.sub_category,
          b.beneficiary_account,
          text(b.payer_account),
          text(b.payer_name),
          b.amount,
          text(b.tracking_key),
          text(b.numeric_reference),
          text(b.payment_concept),
          text(b.owner_id),
          localTime(b.transaction_date, event.received_at),
          event.outcome,
        ],
      );
      if (inserted.rowCount > 0) await matchAndPost(tx, String(b.id));
      return;
    }
    case 'REFUND':
      await tx.query(
        `INSERT INTO ledger_refunds (transaction_id, event_seq, sub_category, original_transaction_id, original_tracking_key, amount, original_amount_stated, tracking_key, transaction_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (transaction_id) DO NOTHING`,
        [
          b.id,
          event.seq,
          text(b.sub_category),
          b.original_transaction_id,
          text(b.original_transaction_tracking_id),
          b.amount,
          text(b.original_transaction_amount),
          text(b.tracking_key),
          localTime(b.transaction_date, event.received_at),
        ],
      );
      await matchAndPost(tx, String(b.original_transaction_id));
      return;
    case 'REPORT': {
      const p = event.payload;
      await tx.query(
        `INSERT INTO ledger_reports (file_name, client_id, file_type, period, created_at, event_seq) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (file_name) DO UPDATE SET event_seq = coalesce(ledger_reports.event_seq, EXCLUDED.event_seq)`,
        [p.file_name, p.client_id ?? null, p.file_type ?? null, p.period ?? null, p.created_at ?? null, event.seq],
      );
      return;
    }
    default:
      // Cash events and unknown types have no ledger rows: applied means seen.
      return;
  }
}

/** The penny validation's ownership from its best CEP (a final one first, then the latest). */
async function decideOne(tx: Queryable, transactionId: string): Promise<void> {
  const { rows } = await tx.query<{
    expected_holder: string | null;
    expected_rfc: string | null;
    event_seq: string;
    status: string;
    beneficiary_name: string | null;
    beneficiary_rfc: string | null;
  }>(
    `SELECT o.expected_holder, o.expected_rfc, c.event_seq::text AS event_seq, c.status, c.beneficiary_name, c.beneficiary_rfc
     FROM ledger_outbound o JOIN ledger_cep_results c ON c.transaction_id = o.transaction_id
     WHERE o.transaction_id = $1 AND o.operation = 'penny_validation'
     ORDER BY (c.status IN ('COMPLETED', 'FAILED')) DESC, c.event_seq DESC LIMIT 1
     FOR UPDATE OF o`,
    [transactionId],
  );
  const row = rows[0];
  if (!row) return;
  const decided = decideOwnership(
    { name: row.expected_holder, rfc: row.expected_rfc },
    { status: row.status, name: row.beneficiary_name, rfc: row.beneficiary_rfc },
  );
  await tx.query(
    'UPDATE ledger_outbound SET cep_status = $2, cep_seq = $3, ownership = $4, ownership_evidence = $5 WHERE transaction_id = $1',
    [transactionId, row.status, row.event_seq, decided.ownership, JSON.stringify(decided.evidence)],
  );
}

/** The journal's posting for the items, one call per event. */
async function post(tx: Queryable, items: string[]): Promise<void> {
  await tx.query("SELECT ledger_post($1::text[], 'apply')", [items]);
}

/** A credit (or the original of a refund): its account's receivables matched again, then the item and what changed posted. */
async function matchAndPost(tx: Queryable, transactionId: string): Promise<void> {
  const { rows } = await tx.query<{ id: string }>(
    `SELECT 'rcv:' || id AS id FROM ledger_rematch(ARRAY(SELECT beneficiary_account FROM ledger_credits WHERE transaction_id = $1)) AS id`,
    [transactionId],
  );
  await post(tx, [`tx:${transactionId}`, ...rows.map((row) => row.id)]);
}
