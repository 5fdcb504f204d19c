// @paykit/ledger: the reconciliation domain on top of @paykit/store. Recording what we send
// (outbound transfers, direct debit charges) and expect (receivables), applying the stored events
// to the ledger exactly once, importing the platform's report files and matching them, and reading
// all of it for the console and the exports. Its tables and SQL functions are its own migration set
// (migrations/, sql/functions/), which @paykit/store's migrate() applies: migrate(db, [ledgerMigrations]).

// The ledger's migrations and SQL functions, for migrate().
export { ledgerMigrations } from './migrations.ts';

// Recording what we send and what we expect to receive.
export { outboundFromApi, recordOutbound } from './record/outbound.ts';
export type { CreatedTransactionLike, OutboundOperation, OutboundRecord } from './record/outbound.ts';
export { createTransactionRecorder, defaultActor, intentRequest } from './record/recorder.ts';
export type {
  FailedTransactionLike,
  TransactionIntentLike,
  TransactionRecorder,
  TransactionRecorderHooks,
  TransactionRecorderOptions,
} from './record/recorder.ts';
// Write-ahead intents of outbound money, and the ones left without an answer.
export { attachIntentsFromEvents } from './record/attach-intents.ts';
export { attachAnswer, IDEMPOTENCY_WINDOW_MS, writeIntent } from './record/intents.ts';
export type { AttachedAnswer, IntentRequest, OutboundIntent } from './record/intents.ts';
export { getIntent, listUnresolvedIntents, unresolvedIntentTotals } from './read/intents.ts';
export type { UnresolvedIntent } from './read/intents.ts';
export { retryUnavailable } from './record/retry.ts';
export type { RetryPolicy } from './record/retry.ts';
export { createChargeRecorder } from './record/charges.ts';
export type { CreatedChargeLike } from './record/charges.ts';
export { registerReceivable } from './match/receivables.ts';
export type { NewReceivable, Receivable } from './match/receivables.ts';

// Applying stored events, and the events that could not be applied.
export { DEFAULT_BATCH_SIZE, reconcileOnce } from './apply/run.ts';
export { auditFloor, countWaiting } from './apply/claim.ts';
export type { FloorAudit, Waiting } from './apply/claim.ts';
export type { ReconcileOptions, ReconcileResult } from './apply/run.ts';
export { allParked, listParked, pageParked, retryParked } from './apply/parked.ts';
export type { ParkedEvent } from './apply/parked.ts';
export { decideOwnership } from './apply/ownership.ts';
export type { Ownership, OwnershipEvidence } from './apply/ownership.ts';

// The books: the double-entry journal every money figure is read from, its invariants, held money.
export { accountBalances, figureApplies, figureOf, itemJournal, MONEY_FIGURES, moneyFigures } from './journal/read.ts';
export type { AccountBalance, DayRange, JournalEntry, MoneyFigure, MoneyRow } from './journal/read.ts';
export { checkBooks } from './journal/check.ts';
export type { BooksCheck } from './journal/check.ts';
export { findCredit, listHeld, listReleases, releaseHeld } from './journal/held.ts';
export type { HeldCredit, HeldRelease } from './journal/held.ts';

// Reading the reconciliation.
export { ITEM_STATES, OUTCOMES, PRODUCTS } from './read/items-sql.ts';
export type { ItemState, MoneyOutcome, Product, ReconcileView } from './read/items-sql.ts';
export { allItems, listItems, pageItems } from './read/items.ts';
export type { DirectionTotals, ItemFilter, ReconItem, ReportLineRef } from './read/items.ts';
export { pendingAging, reconciliationSummary, stateTotals } from './read/summary.ts';
export type { AgingBucket, StateFigures, SummaryRow } from './read/summary.ts';
export { allReceivables, pageReceivables, RECEIVABLE_AGES, receivablesByAge } from './read/receivables.ts';
export type { OpenReceivable, ReceivableAge, ReceivableAgeBucket, ReceivableFilter } from './read/receivables.ts';
export { allConflicts, CONFLICT_KINDS, conflictCounts, listConflicts, pageConflicts } from './apply/conflicts.ts';
export type { Conflict, ConflictKind } from './apply/conflicts.ts';

// The platform's report files (their format is @paykit/contracts' parseReportCsv/formatReportCsv).
export { importReport } from './match/report-import.ts';
export type { ReportImportResult } from './match/report-import.ts';
export { allReportMatches, pageReportMatches, reportMatches } from './match/report-match.ts';
export type { ReportMatch } from './match/report-match.ts';
export { pageReportFiles } from './read/report-files.ts';
export type { ReportFile } from './read/report-files.ts';
// Retention: months of stored events archived to files and dropped, and restored for an audit.
export { archiveEvents, DEFAULT_DEDUPE_WINDOW_DAYS } from './archive/archive.ts';
export type { ArchivedMonth, ArchiveOptions, ArchiveResult, KeptMonth } from './archive/archive.ts';
export { restoreArchive } from './archive/restore.ts';
export type { RestoreResult } from './archive/restore.ts';
export { ARCHIVE_FORMAT, verifiedManifest } from './archive/format.ts';
export type { ArchivedEvent, ArchiveManifest } from './archive/format.ts';
