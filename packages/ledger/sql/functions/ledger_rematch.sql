-- Matches every credit of the accounts again from all their facts (the caller holds the accounts'
-- key locks) and returns the receivables whose payments changed, for ledger_post. See
-- packages/ledger/README.md "Matching".
--   1. A credit whose numeric reference equals a receivable's reference (leading zeros aside) pays
--      that receivable; several credits of one reference pay it in the platform's time order, each
--      up to what is still open. Two receivables of one reference: needs review.
--   2. Otherwise it pays the one receivable of its account and amount that no credit names by
--      reference, only when exactly one fits and no other such credit fits it: else needs review.
--   Credits that are held, rejected, refunded or contested pay nothing (a refund reopens what it paid).
CREATE OR REPLACE FUNCTION ledger_rematch(accounts text[]) RETURNS SETOF text
LANGUAGE sql AS $$
  -- Every step works on one set of (receivable, credit) pairs with window functions: the planner
  -- cannot size these intermediate sets, and a join between two of them would be a nested loop.
  WITH receivables AS (
    SELECT r.id, r.beneficiary_account AS account, r.amount, nullif(ltrim(r.reference, '0'), '') AS ref
    FROM ledger_receivables r WHERE r.beneficiary_account = ANY(accounts)
  ), found AS (
    -- The credits that meet a receivable by amount or by reference, each looked up by its index
    -- (account first), so an account's many unrelated credits are never read.
    SELECT r.id AS rid, r.amount AS ramount, c.transaction_id AS cid, c.amount, c.transaction_at AS at,
           r.ref IS NOT NULL AND r.ref = nullif(ltrim(c.numeric_reference, '0'), '') AS by_ref, r.amount = c.amount AS by_amount,
           c.gateway_outcome
    FROM receivables r JOIN ledger_credits c ON c.beneficiary_account = r.account AND c.amount = r.amount
    UNION
    SELECT r.id, r.amount, c.transaction_id, c.amount, c.transaction_at, true, r.amount = c.amount, c.gateway_outcome
    FROM receivables r JOIN ledger_credits c ON c.beneficiary_account = r.account AND nullif(ltrim(c.numeric_reference, '0'), '') = r.ref
  ), pairs AS (
    -- Only money in pays: accepted or released, not refunded, not contested.
    SELECT f.*, count(*) FILTER (WHERE f.by_ref) OVER (PARTITION BY f.cid) AS refs
    FROM found f
    WHERE (f.gateway_outcome = 'accepted'
           OR f.gateway_outcome <> 'rejected' AND EXISTS (SELECT 1 FROM ledger_held_releases h WHERE h.credit_id = f.cid AND h.decision = 'accepted'))
      AND NOT EXISTS (SELECT 1 FROM ledger_refunds x WHERE x.original_transaction_id = f.cid)
      AND NOT EXISTS (SELECT 1 FROM ledger_conflicts k WHERE k.kind = 'credit' AND k.transaction_id = f.cid)
  ), named AS (
    -- Whether a credit that names only this receivable exists: then no credit pays it by amount alone.
    SELECT p.*, bool_or(p.by_ref AND p.refs = 1) OVER (PARTITION BY p.rid) AS named FROM pairs p
  ), by_ref AS (
    -- Credits that name exactly one receivable pay it in time order, each up to what is left.
    SELECT q.*, sum(q.applied) OVER (PARTITION BY q.rid) AS paid FROM (
      SELECT n.rid, n.ramount, n.cid, n.amount,
             greatest(0, least(n.amount, n.ramount - (sum(n.amount) OVER (PARTITION BY n.rid ORDER BY n.at, n.cid) - n.amount))) AS applied
      FROM named n WHERE n.by_ref AND n.refs = 1
    ) q
  ), fits AS (
    SELECT n.rid, n.cid, n.amount, count(*) OVER (PARTITION BY n.cid) AS per_credit, count(*) OVER (PARTITION BY n.rid) AS per_receivable
    FROM named n WHERE n.refs = 0 AND n.by_amount AND NOT n.named
  ), fresh AS (
    SELECT b.cid AS credit_id, a.account,
           CASE WHEN b.applied < b.amount THEN 'overpaid' WHEN b.paid < b.ramount THEN 'partial' ELSE 'matched' END AS state,
           b.rid AS receivable_id, b.applied, ARRAY[b.rid] AS candidates,
           CASE WHEN b.applied < b.amount THEN 'pays ' || b.applied || ' of receivable ' || b.rid || ' by its reference; ' || (b.amount - b.applied) || ' is left over'
                WHEN b.paid < b.ramount THEN 'pays ' || b.applied || ' of receivable ' || b.rid || ' by its reference; ' || (b.ramount - b.paid) || ' is still open'
                ELSE 'receivable ' || b.rid || ' (by its reference)' END AS note
    FROM by_ref b CROSS JOIN LATERAL (SELECT beneficiary_account AS account FROM ledger_credits WHERE transaction_id = b.cid) a
    UNION ALL
    SELECT g.cid, a.account, 'needs_review', NULL, 0, g.ids, 'its reference names ' || cardinality(g.ids) || ' receivables: ' || array_to_string(g.ids, ', ')
    FROM (SELECT cid, array_agg(rid ORDER BY rid) AS ids FROM pairs WHERE by_ref AND refs > 1 GROUP BY cid) g
    CROSS JOIN LATERAL (SELECT beneficiary_account AS account FROM ledger_credits WHERE transaction_id = g.cid) a
    UNION ALL
    SELECT g.cid, a.account, CASE WHEN g.sole THEN 'matched' ELSE 'needs_review' END, CASE WHEN g.sole THEN g.rid END,
           CASE WHEN g.sole THEN g.amount ELSE 0 END, g.ids,
           CASE WHEN g.sole THEN 'receivable ' || g.rid || ' (the only one of its account and amount)'
                WHEN cardinality(g.ids) > 1 THEN cardinality(g.ids) || ' receivables fit its account and amount: ' || array_to_string(g.ids, ', ')
                ELSE 'receivable ' || g.rid || ' fits it, and so do ' || (g.contenders - 1) || ' other credit(s) of that amount' END
    FROM (
      SELECT cid, bool_and(per_credit = 1 AND per_receivable = 1) AS sole, array_agg(rid ORDER BY rid) AS ids, min(rid) AS rid, min(amount) AS amount,
             max(per_receivable) AS contenders
      FROM fits GROUP BY cid
    ) g
    CROSS JOIN LATERAL (SELECT beneficiary_account AS account FROM ledger_credits WHERE transaction_id = g.cid) a
  ), old AS (
    SELECT m.credit_id, m.receivable_id FROM ledger_credit_matches m WHERE m.account = ANY(accounts)
  ), upserted AS (
    INSERT INTO ledger_credit_matches AS m (credit_id, account, state, receivable_id, applied, candidates, note)
    SELECT credit_id, account, state, receivable_id, applied, candidates, note FROM fresh
    ON CONFLICT (credit_id) DO UPDATE SET account = EXCLUDED.account, state = EXCLUDED.state, receivable_id = EXCLUDED.receivable_id,
      applied = EXCLUDED.applied, candidates = EXCLUDED.candidates, note = EXCLUDED.note
    WHERE (m.state, m.receivable_id, m.applied, m.candidates, m.note)
          IS DISTINCT FROM (EXCLUDED.state, EXCLUDED.receivable_id, EXCLUDED.applied, EXCLUDED.candidates, EXCLUDED.note)
    RETURNING m.credit_id, m.receivable_id
  ), removed AS (
    DELETE FROM ledger_credit_matches m
    WHERE m.account = ANY(accounts) AND m.credit_id NOT IN (SELECT credit_id FROM fresh)
    RETURNING m.receivable_id
  )
  -- The receivables whose payments changed: what a changed or removed match paid before, and pays now.
  SELECT DISTINCT x.receivable_id FROM (
    SELECT receivable_id FROM upserted
    UNION ALL SELECT receivable_id FROM removed
    UNION ALL SELECT receivable_id FROM old WHERE credit_id IN (SELECT credit_id FROM upserted)
  ) x WHERE x.receivable_id IS NOT NULL
$$;
