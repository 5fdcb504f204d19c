-- How far a transaction status has moved. Terminal outcomes share a rank so a late sibling never
-- replaces the first one (the disagreement is reported instead); REFUNDED follows a settlement.
CREATE OR REPLACE FUNCTION ledger_status_rank(status text) RETURNS smallint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE status
    WHEN 'INITIALIZED' THEN 0 WHEN 'IN_PROGRESS' THEN 1
    WHEN 'LIQUIDATED' THEN 2 WHEN 'REJECTED' THEN 2 WHEN 'CANCELLED' THEN 2 WHEN 'DECLINED' THEN 2
    WHEN 'REFUNDED' THEN 3 ELSE NULL END::smallint
$$;
