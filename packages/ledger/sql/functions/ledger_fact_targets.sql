-- The entries the facts of each transfer, credit, direct debit charge and receivable call for now
-- (ledger_targets adds the write-ahead intents' to them). Amounts > 0 debit, < 0 credit; every
-- item's rows balance. Items: tx:<transaction id> (a transfer or credit and its refunds),
-- dd:<charge id>, rcv:<receivable id>. The accounts are listed in packages/ledger/README.md.
CREATE OR REPLACE FUNCTION ledger_fact_targets(items text[])
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
