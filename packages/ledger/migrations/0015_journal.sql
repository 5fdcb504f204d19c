-- The books: a double-entry journal over the ledger's facts, receivable matching that does not
-- depend on arrival order, and held credits that stay held until an operator releases them.
--
-- Every item of the ledger (a transfer or credit and its refunds: tx:<transaction id>; a direct
-- debit charge: dd:<charge id>; a receivable: rcv:<id>) has a target: the entries its facts call
-- for now (ledger_targets). Whenever a fact about an item is applied, ledger_post appends one
-- posting with the difference between the target and what the journal already holds for it, so a
-- correction is a new posting, never an update, and the journal of an item always nets to what
-- its facts say, in whatever order they came. Each entry names the fact it stands on (source:
-- event:<seq>, record:<transaction id>, receivable:<id>, release:<credit id>).
-- Released migrations are never edited (their checksum is recorded): change the schema in a new file.

-- Accounts (amount > 0 debits, < 0 credits):
--   platform:<CLABE>      our money at the platform in that account (platform:direct_debit for
--                         charges, platform:unknown for a transfer whose answer named no source)
--   out:in_transit        sent, not final yet
--   out:paid              paid out (settled)          out:reversed  reversals of paid transfers (contra)
--   in:received           received (settled)          in:refunded   refunds of received credits (contra)
--   in:charged_back       direct debit chargebacks (contra)
--   in:held               credits the gateway held (202) or flagged, not released
--   receivable:<id>       what is still owed on a receivable; receivables:expected its counterpart
CREATE SEQUENCE ledger_posting_seq;
CREATE TABLE ledger_journal (
  posting_id  bigint        NOT NULL,
  item        text          NOT NULL,
  account     text          NOT NULL,
  value_date  date          NOT NULL,
  amount      numeric(18,2) NOT NULL CHECK (amount <> 0),
  source      text          NOT NULL,
  -- What made the posting: apply (a worker's batch), record, register, release, migrate.
  cause       text          NOT NULL,
  posted_at   timestamptz   NOT NULL DEFAULT now()
);
CREATE INDEX ledger_journal_item ON ledger_journal (item);
CREATE INDEX ledger_journal_posting ON ledger_journal (posting_id);
CREATE INDEX ledger_journal_account_day ON ledger_journal (account, value_date);

-- Append-only: an entry is never changed or removed (a correction is a posting of its own).
CREATE FUNCTION ledger_journal_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger_journal is append-only: post a correcting entry instead of % ', TG_OP;
END
$$;
CREATE TRIGGER ledger_journal_append_only BEFORE UPDATE OR DELETE ON ledger_journal
  FOR EACH ROW EXECUTE FUNCTION ledger_journal_append_only();

-- An operator's release of a held credit, after the gateway re-decided it under the current policy.
CREATE TABLE ledger_held_releases (
  credit_id    text        PRIMARY KEY REFERENCES ledger_credits (transaction_id),
  decision     text        NOT NULL CHECK (decision IN ('accepted')),
  released_by  text        NOT NULL,
  released_at  timestamptz NOT NULL DEFAULT now(),
  note         text
);

-- What a credit is to the books: accepted (money in), held (here but not ours to use yet) or
-- rejected (answered 422: the platform returns it to its payer).
CREATE FUNCTION ledger_credit_standing(credit_id text, gateway_outcome text) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN gateway_outcome = 'accepted' THEN 'accepted'
    WHEN gateway_outcome = 'rejected' THEN 'rejected'
    WHEN EXISTS (SELECT 1 FROM ledger_held_releases h WHERE h.credit_id = $1 AND h.decision = 'accepted') THEN 'accepted'
    ELSE 'held' END
$$;

-- Refunds are never partial, so a transaction has one refund that stands: the earliest by the
-- platform's own time, then by id (never by arrival), leaving out one whose content is contested (a
-- REFUND id reused with other content: it books nothing). Any other refund of it is a conflict.
-- One row or none per transaction, found by index; a SQL function the planner inlines where it is
-- called (LATERAL, per item).
CREATE FUNCTION ledger_standing_refund(original text)
RETURNS TABLE (transaction_id text, event_seq bigint, amount numeric, transaction_at timestamptz)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT f.transaction_id, f.event_seq, f.amount, f.transaction_at FROM ledger_refunds f
  WHERE f.original_transaction_id = original
    AND NOT EXISTS (SELECT 1 FROM ledger_conflicts k WHERE k.kind = 'refund' AND k.transaction_id = f.transaction_id)
  ORDER BY f.transaction_at, f.transaction_id LIMIT 1
$$;

-- Receivable matching, one row per credit that meets a receivable of its account (a credit with
-- no row pays nothing). See packages/ledger/README.md "Matching".
CREATE TABLE ledger_credit_matches (
  credit_id     text          PRIMARY KEY,
  account       text          NOT NULL,
  state         text          NOT NULL CHECK (state IN ('matched', 'partial', 'overpaid', 'needs_review')),
  receivable_id text,
  applied       numeric(18,2) NOT NULL DEFAULT 0,
  candidates    text[]        NOT NULL DEFAULT '{}',
  note          text          NOT NULL
);
CREATE INDEX ledger_credit_matches_account ON ledger_credit_matches (account);
CREATE INDEX ledger_credit_matches_receivable ON ledger_credit_matches (receivable_id);
CREATE INDEX ledger_credits_account_amount ON ledger_credits (beneficiary_account, amount);
CREATE INDEX ledger_credits_account_reference ON ledger_credits (beneficiary_account, (nullif(ltrim(numeric_reference, '0'), '')));
CREATE INDEX ledger_receivables_account ON ledger_receivables (beneficiary_account);
CREATE INDEX ledger_refunds_original_time ON ledger_refunds (original_transaction_id, transaction_at, transaction_id);

-- Matches every credit of the accounts again from all their facts (the caller holds the accounts'
-- key locks) and returns the receivables whose payments changed, for ledger_post.
--   1. A credit whose numeric reference equals a receivable's reference (leading zeros aside) pays
--      that receivable; several credits of one reference pay it in the platform's time order, each
--      up to what is still open. Two receivables of one reference: needs review.
--   2. Otherwise it pays the one receivable of its account and amount that no credit names by
--      reference, only when exactly one fits and no other such credit fits it: else needs review.
--   Credits that are held, rejected, refunded or contested pay nothing (a refund reopens what it paid).
CREATE FUNCTION ledger_rematch(accounts text[]) RETURNS SETOF text
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

-- The entries each item's facts call for now. Amounts > 0 debit, < 0 credit; every item's rows
-- balance.
CREATE FUNCTION ledger_targets(items text[])
RETURNS TABLE (item text, account text, value_date date, amount numeric, source text)
LANGUAGE sql STABLE AS $$
  WITH ids AS (
    SELECT DISTINCT substr(i, 4) AS id FROM unnest(items) i WHERE i LIKE 'tx:%'
  ), outbound AS MATERIALIZED (
    SELECT 'tx:' || o.transaction_id AS item, 'platform:' || coalesce(o.source_account, 'unknown') AS platform, o.amount,
           ledger_day(o.created_at) AS sent_day, 'record:' || o.transaction_id AS sent_source,
           ledger_day(coalesce(o.status_at, o.created_at)) AS status_day, coalesce('event:' || o.status_seq, 'record:' || o.transaction_id) AS status_source,
           CASE WHEN f.transaction_id IS NOT NULL OR o.status = 'REFUNDED' THEN 'reversed' WHEN o.status = 'LIQUIDATED' THEN 'paid'
                WHEN o.status_rank = 2 THEN 'failed' ELSE 'in_transit' END AS state,
           coalesce(f.amount, o.amount) AS reversed_amount,
           coalesce(ledger_day(f.transaction_at), ledger_day(coalesce(o.status_at, o.created_at))) AS reversed_day,
           coalesce('event:' || f.event_seq, 'event:' || o.status_seq, 'record:' || o.transaction_id) AS reversed_source
    FROM ledger_outbound o JOIN ids ON ids.id = o.transaction_id
    LEFT JOIN LATERAL ledger_standing_refund(o.transaction_id) f ON true
  ), credits AS MATERIALIZED (
    -- The standing of ledger_credit_standing, written out: computed once per credit.
    SELECT 'tx:' || c.transaction_id AS item, 'platform:' || c.beneficiary_account AS platform, c.amount, ledger_day(c.transaction_at) AS day,
           'event:' || c.event_seq AS source,
           CASE WHEN c.gateway_outcome = 'accepted' THEN 'accepted' WHEN c.gateway_outcome = 'rejected' THEN 'rejected'
                WHEN h.decision = 'accepted' THEN 'accepted' ELSE 'held' END AS standing,
           f.amount AS refund_amount, ledger_day(f.transaction_at) AS refund_day, 'event:' || f.event_seq AS refund_source,
           'release:' || h.credit_id AS release_source
    FROM ledger_credits c JOIN ids ON ids.id = c.transaction_id
    LEFT JOIN LATERAL ledger_standing_refund(c.transaction_id) f ON true
    LEFT JOIN ledger_held_releases h ON h.credit_id = c.transaction_id
    -- A credit whose content is contested (two MONEY_IN of one transaction that disagree) books
    -- nothing until the platform settles which is true: it is not settled money.
    WHERE NOT EXISTS (SELECT 1 FROM ledger_conflicts k WHERE k.kind = 'credit' AND k.transaction_id = c.transaction_id)
  ), charges AS (
    SELECT 'dd:' || k.charge_id AS item, coalesce(c.amount, ok.amount) AS amount, ok.result_at AS confirmed_at, ok.event_seq AS confirmed_seq,
           back.result_at AS back_at, back.event_seq AS back_seq
    FROM (SELECT DISTINCT substr(i, 4) AS charge_id FROM unnest(items) i WHERE i LIKE 'dd:%') k
    LEFT JOIN ledger_dd_charges c ON c.charge_id = k.charge_id
    JOIN ledger_dd_results ok ON ok.charge_id = k.charge_id AND ok.outcome = 'confirmed'
    LEFT JOIN LATERAL (
      SELECT x.result_at, x.event_seq FROM ledger_dd_results x
      WHERE x.charge_id = k.charge_id AND x.outcome <> 'confirmed' AND x.result_at > ok.result_at
      ORDER BY x.result_at, x.event_seq LIMIT 1
    ) back ON true
  ), receivables AS (
    SELECT 'rcv:' || r.id AS item, r.id, r.amount, r.due_date AS day
    FROM ledger_receivables r WHERE r.id = ANY(ARRAY(SELECT substr(i, 5) FROM unnest(items) i WHERE i LIKE 'rcv:%'))
  )
  -- A transfer: money leaves its account when the platform takes it, reaches the payee when it
  -- settles, comes back when it is reversed; a rejected transfer moved nothing.
  SELECT o.item, x.account, x.value_date, x.amount, x.source
  FROM outbound o CROSS JOIN LATERAL (VALUES
    (o.platform, o.sent_day, -o.amount, o.sent_source, o.state <> 'failed'),
    ('out:in_transit', o.sent_day, o.amount, o.sent_source, o.state = 'in_transit'),
    ('out:paid', o.status_day, o.amount, o.status_source, o.state IN ('paid', 'reversed')),
    (o.platform, o.reversed_day, o.reversed_amount, o.reversed_source, o.state = 'reversed'),
    ('out:reversed', o.reversed_day, -o.reversed_amount, o.reversed_source, o.state = 'reversed')
  ) AS x(account, value_date, amount, source, applies)
  WHERE x.applies AND x.amount <> 0
  UNION ALL
  -- A credit: received (or held) into its account; a refund returns it to the payer.
  SELECT c.item, x.account, x.value_date, x.amount, x.source
  FROM credits c CROSS JOIN LATERAL (VALUES
    (c.platform, c.day, c.amount, c.source, c.standing <> 'rejected'),
    (CASE WHEN c.standing = 'accepted' THEN 'in:received' ELSE 'in:held' END, c.day, -c.amount,
     CASE WHEN c.standing = 'accepted' AND c.release_source IS NOT NULL THEN c.release_source ELSE c.source END, c.standing <> 'rejected'),
    (c.platform, c.refund_day, -c.refund_amount, c.refund_source, c.standing <> 'rejected' AND c.refund_amount IS NOT NULL),
    (CASE WHEN c.standing = 'accepted' THEN 'in:refunded' ELSE 'in:held' END, c.refund_day, c.refund_amount, c.refund_source,
     c.standing <> 'rejected' AND c.refund_amount IS NOT NULL)
  ) AS x(account, value_date, amount, source, applies)
  WHERE x.applies AND x.amount <> 0
  UNION ALL
  -- A direct debit charge: collected when confirmed; a decline or cancel after that is a chargeback.
  SELECT d.item, x.account, x.value_date, x.amount, x.source
  FROM charges d CROSS JOIN LATERAL (VALUES
    ('platform:direct_debit', ledger_day(d.confirmed_at), d.amount, 'event:' || d.confirmed_seq, true),
    ('in:received', ledger_day(d.confirmed_at), -d.amount, 'event:' || d.confirmed_seq, true),
    ('in:charged_back', ledger_day(d.back_at), d.amount, 'event:' || d.back_seq, d.back_at IS NOT NULL),
    ('platform:direct_debit', ledger_day(d.back_at), -d.amount, 'event:' || d.back_seq, d.back_at IS NOT NULL)
  ) AS x(account, value_date, amount, source, applies)
  WHERE x.applies AND d.amount IS NOT NULL AND x.amount <> 0
  UNION ALL
  -- A receivable: owed on its due date; each credit applied to it pays part or all of it, on the credit's day.
  SELECT r.item, x.account, x.value_date, x.amount, x.source
  FROM receivables r CROSS JOIN LATERAL (
    VALUES ('receivable:' || r.id, r.day, r.amount, 'receivable:' || r.id), ('receivables:expected', r.day, -r.amount, 'receivable:' || r.id)
    UNION ALL
    SELECT a.account, ledger_day(c.transaction_at), a.sign * m.applied, 'event:' || c.event_seq
    FROM ledger_credit_matches m JOIN ledger_credits c ON c.transaction_id = m.credit_id
    CROSS JOIN (VALUES ('receivable:' || r.id, -1), ('receivables:expected', 1)) AS a(account, sign)
    WHERE m.receivable_id = r.id AND m.applied > 0
  ) AS x(account, value_date, amount, source)
$$;

-- Appends, for each item, one posting that brings its journal to its target; returns the number
-- of entries written (0 when the journal already says what the facts say).
CREATE FUNCTION ledger_post(items text[], cause text) RETURNS integer
LANGUAGE sql AS $$
  WITH target AS (
    SELECT t.item, t.account, t.value_date, t.source, sum(t.amount) AS amount FROM ledger_targets(items) t GROUP BY 1, 2, 3, 4
  ), booked AS (
    SELECT j.item, j.account, j.value_date, j.source, sum(j.amount) AS amount
    FROM ledger_journal j WHERE j.item = ANY(items) GROUP BY 1, 2, 3, 4
  ), changed AS (
    SELECT coalesce(t.item, b.item) AS item, coalesce(t.account, b.account) AS account, coalesce(t.value_date, b.value_date) AS value_date,
           coalesce(t.source, b.source) AS source, coalesce(t.amount, 0) - coalesce(b.amount, 0) AS amount
    FROM target t FULL JOIN booked b ON b.item = t.item AND b.account = t.account AND b.value_date = t.value_date AND b.source = t.source
    WHERE coalesce(t.amount, 0) <> coalesce(b.amount, 0)
  ), postings AS (
    SELECT s.item, nextval('ledger_posting_seq') AS posting_id FROM (SELECT DISTINCT c.item FROM changed c ORDER BY 1) s
  ), written AS (
    INSERT INTO ledger_journal (posting_id, item, account, value_date, amount, source, cause)
    SELECT p.posting_id, c.item, c.account, c.value_date, c.amount, c.source, $2 FROM changed c JOIN postings p ON p.item = c.item
    RETURNING 1
  )
  SELECT count(*)::int FROM written
$$;

-- Every item's journal key, for a full check or a rebuild.
CREATE FUNCTION ledger_all_items() RETURNS SETOF text
LANGUAGE sql STABLE AS $$
  SELECT 'tx:' || transaction_id FROM ledger_outbound
  UNION SELECT 'tx:' || transaction_id FROM ledger_credits
  UNION SELECT 'tx:' || original_transaction_id FROM ledger_refunds
  UNION SELECT 'dd:' || charge_id FROM ledger_dd_results
  UNION SELECT 'rcv:' || id FROM ledger_receivables
$$;

-- The receivables' one-to-one credit_id gives way to ledger_credit_matches: match every account
-- again, then book everything the ledger already holds.
SELECT count(*) FROM ledger_rematch(ARRAY(SELECT DISTINCT beneficiary_account FROM ledger_receivables));
ALTER TABLE ledger_receivables DROP COLUMN credit_id;
SELECT ledger_post(ARRAY(SELECT ledger_all_items()), 'migrate');
