-- One amount rule. ledger_is_amount (0003_ledger) spelled a second one ("digits, a dot, two
-- decimals", zero and 17 digits included) that nothing reads any more: core amounts are read with
-- paykit_amount (sql/functions/paykit_amount.sql), the same rule as @paykit/contracts'
-- readAmount, which the gateway applies; direct debit amounts with ledger_amount. It is dropped so
-- that no SQL written later reads an amount by another rule.
-- Released migrations are never edited (their checksum is recorded): change the schema in a new file.
DROP FUNCTION ledger_is_amount(text);
