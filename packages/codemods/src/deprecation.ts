// The one wording of the internal_transaction deprecation. The core client's one-time runtime
// warning (packages/core-client/src/transactions.ts), the changelog entry of 2026-05-07, this
// codemod's output and the paykit CLI all print this sentence; tooling/release's test fails when
// one of them drifts.

/** The date the platform deprecated internal_transaction (its dated API change). */
export const INTERNAL_TRANSACTION_DEPRECATED_SINCE = '2026-05-07';

/** What every paykit surface says about internal_transaction. */
export const INTERNAL_TRANSACTION_DEPRECATION =
  'core internal_transaction is deprecated since 2026-05-07: call transactions.moneyOut with the same body; it routes internal transfers automatically (INT_DEBIT).';
