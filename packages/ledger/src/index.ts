// @paykit/ledger: the reconciliation domain on top of @paykit/store. Recording what we send
// (outbound transfers, direct debit charges) and expect (receivables), applying the stored events
// to the ledger exactly once, importing the platform's report files and matching them, and reading
// all of it for the console and the exports. Its tables and SQL functions are its own migration set
// (migrations/, sql/functions/), which @paykit/store's migrate() applies: migrate(db, [ledgerMigrations]).

// The ledger's migrations and SQL functions, for migrate().
export { ledgerMigrations } from './migrations.ts';

// Recording what we send and what we expect to receive.
export { outboundFromApi, recordOutbound } from './ledger-outbound.ts';
export type { CreatedTransactionLike, OutboundOperation, OutboundRecord } from './ledger-outbound.ts';
export { createTransactionRecorder, defaultActor, intentRequest } from './ledger-recorder.ts';
export type {
  FailedTransactionLike,
  TransactionIntentLike,
  TransactionRecorder,
  TransactionRecorderHooks,
  TransactionRecorderOptions,
} from './ledger-recorder.ts';
// Write-ahead intents of outbound money, and the ones left without an answer.
export { attachIntentsFromEvents } from './ledger-intents-attach.ts';
export {
  attachAnswer,
  getIntent,
  IDEMPOTENCY_WINDOW_MS,
  listUnresolvedIntents,
  unresolvedIntentTotals,
  writeIntent,
} from './ledger-intents.ts';
export type { AttachedAnswer, IntentRequest, OutboundIntent, UnresolvedIntent } from './ledger-intents.ts';
export { retryUnavailable } from './ledger-retry.ts';
export type { RetryPolicy } from './ledger-retry.ts';
export { createChargeRecorder } from './ledger-dd-charges.ts';
export type { CreatedChargeLike } from './ledger-dd-charges.ts';
export { registerReceivable } from './ledger-receivables.ts';
export type { NewReceivable, Receivable } from './ledger-receivables.ts';

// Applying stored events, and the events that could not be applied.
export { DEFAULT_BATCH_SIZE, reconcileOnce } from './reconcile-run.ts';
export { auditFloor, countWaiting } from './reconcile-claim.ts';
export type { FloorAudit, Waiting } from './reconcile-claim.ts';
export type { ReconcileOptions, ReconcileResult } from './reconcile-run.ts';
export { allParked, listParked, pageParked, retryParked } from './reconcile-parked.ts';
export type { ParkedEvent } from './reconcile-parked.ts';
export { decideOwnership } from './reconcile-ownership.ts';
export type { Ownership, OwnershipEvidence } from './reconcile-ownership.ts';

// The books: the double-entry journal every money figure is read from, its invariants, held money.
export { accountBalances, figureApplies, figureOf, itemJournal, MONEY_FIGURES, moneyFigures } from './journal/read.ts';
export type { AccountBalance, DayRange, JournalEntry, MoneyFigure, MoneyRow } from './journal/read.ts';
export { checkBooks } from './journal/check.ts';
export type { BooksCheck } from './journal/check.ts';
export { findCredit, listHeld, listReleases, releaseHeld } from './journal/held.ts';
export type { HeldCredit, HeldRelease } from './journal/held.ts';

// Reading the reconciliation.
export {
  allItems,
  ITEM_STATES,
  listItems,
  OUTCOMES,
  pageItems,
  pendingAging,
  PRODUCTS,
  reconciliationSummary,
  stateTotals,
} from './reconcile-read.ts';
export type {
  AgingBucket,
  DirectionTotals,
  ItemFilter,
  ItemState,
  MoneyOutcome,
  Product,
  ReconcileView,
  ReconItem,
  ReportLineRef,
  StateFigures,
  SummaryRow,
} from './reconcile-read.ts';
export { allReceivables, pageReceivables, RECEIVABLE_AGES, receivablesByAge } from './receivables-read.ts';
export type { OpenReceivable, ReceivableAge, ReceivableAgeBucket, ReceivableFilter } from './receivables-read.ts';
export { allConflicts, CONFLICT_KINDS, conflictCounts, listConflicts, pageConflicts } from './ledger-conflicts.ts';
export type { Conflict, ConflictKind } from './ledger-conflicts.ts';

// The platform's report files (their format is @paykit/contracts' parseReportCsv/formatReportCsv).
export { allReportMatches, importReport, pageReportFiles, pageReportMatches, reportMatches } from './report-import.ts';
export type { ReportFile, ReportImportResult, ReportMatch } from './report-import.ts';
// Retention: months of stored events archived to files and dropped, and restored for an audit.
export { archiveEvents, DEFAULT_DEDUPE_WINDOW_DAYS } from './archive/archive.ts';
export type { ArchivedMonth, ArchiveOptions, ArchiveResult, KeptMonth } from './archive/archive.ts';
export { restoreArchive } from './archive/restore.ts';
export type { RestoreResult } from './archive/restore.ts';
export { ARCHIVE_FORMAT, verifiedManifest } from './archive/format.ts';
export type { ArchivedEvent, ArchiveManifest } from './archive/format.ts';
