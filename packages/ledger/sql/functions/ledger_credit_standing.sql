-- What a credit is to the books: accepted (money in), held (here but not ours to use yet) or
-- rejected (answered 422: the platform returns it to its payer).
CREATE OR REPLACE FUNCTION ledger_credit_standing(credit_id text, gateway_outcome text) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN gateway_outcome = 'accepted' THEN 'accepted'
    WHEN gateway_outcome = 'rejected' THEN 'rejected'
    WHEN EXISTS (SELECT 1 FROM ledger_held_releases h WHERE h.credit_id = $1 AND h.decision = 'accepted') THEN 'accepted'
    ELSE 'held' END
$$;
