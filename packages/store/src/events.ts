// The webhook event store: every event the gateway answers is committed here first, exactly as
// received, with the decision it was answered with. Appends go through group commit (see
// group-commit.ts and event-batch.ts); reads page newest first by seq.
import { messageOf, sqlState } from './connection-errors.ts';
import type { Database } from './database.ts';
import { StoreConfigError, StoreInputError, StoreUnavailableError } from './errors.ts';
import { commitEvents } from './event-batch.ts';
import {
  checkDrift,
  httpStatus,
  nullableText,
  oneOf,
  OUTCOMES,
  prepareEvent,
  SOURCES,
  text,
  timestamp,
} from './event-input.ts';
import type { PreparedEvent } from './event-input.ts';
import { EVENT_COLUMNS, REPLAY_COLUMNS, toReplayRecord, toStoredEvent } from './event-rows.ts';
import type { EventRow, ReplayRow } from './event-rows.ts';
import { createGroupCommit } from './group-commit.ts';
import { toJsonbText } from './jsonb-text.ts';
import type { CommitInfo } from './group-commit.ts';

export type { CommitInfo } from './group-commit.ts';

export type EventSource = 'core' | 'cash' | 'direct_debit';
export type Outcome = 'accepted' | 'rejected' | 'flagged' | 'stored';

export interface DriftNote {
  path: string;
  kind: string;
  expected: string;
  seen: string;
}

export interface NewEvent {
  source: EventSource;
  /** MONEY_IN | STATUS_UPDATE | CEP | REFUND | REPORT | unknown msg_name, or a cash event name. */
  eventType: string;
  /**
   * Unique per event: core `core:<event type>:<id_msg>`, REPORT `core:report:<client_id>:<file_name>`, cash
   * `cash:<operation_id>:<event>`. A later append of the key with another body is answered as a
   * duplicate and its body recorded as a conflict (ledger_conflicts, kind redelivery: the ledger's
   * migration set, which the gateway runs, defines the append that records it).
   */
  dedupeKey: string;
  idMsg: string | null;
  /** core body.id (transaction id), when present. */
  transactionId: string | null;
  /** cash operation_id as decimal text, when present. */
  operationId: string | null;
  /** The exact bytes received. */
  rawBody: Uint8Array;
  /**
   * The parsed JSON (stored as jsonb; a \u0000 or a lone surrogate in it becomes U+FFFD, rawBody
   * keeps the original). Omit it when it is exactly JSON.parse(rawBody): the body then travels to
   * the database once and the jsonb is read from it there.
   */
  payload?: unknown;
  /** Headers worth keeping, secrets already removed by the caller. */
  headers: Record<string, string>;
  receivedAt: Date;
  drift: DriftNote[];
  outcome: Outcome;
  reason: string | null;
  /** The HTTP status the gateway answers (and answers again to a duplicate). */
  answerStatus: number;
  refundReason: string | null;
  /** For a decision that read an account: commit it only if the account is still as read (see AccountGuard). */
  accountGuard?: AccountGuard;
}

/** The decision fields of an event. */
export type EventDecision = Pick<NewEvent, 'outcome' | 'reason' | 'answerStatus' | 'refundReason'>;

/**
 * A decision taken on an account that may have changed since it was read (a cached copy): the
 * event is committed only if the account's row still has `version` (null: there is still no such
 * account), checked in the statement that writes it. If it changed, nothing is written and the
 * append rejects with AccountChangedError, carrying the account as it is now; the caller decides
 * again and appends again with that account's version. So no decision is ever stored on an account
 * older than the statement that stores it, and the store takes no decision of its own.
 */
export interface AccountGuard {
  clabe: string;
  version: string | null;
}

export interface AppendResult {
  /** bigint as decimal text */
  seq: string;
  /** false: a duplicate; the fields below are the ORIGINAL's */
  inserted: boolean;
  /** how many times this dedupeKey has arrived, this one included */
  deliveries: number;
  outcome: Outcome;
  reason: string | null;
  answerStatus: number;
  refundReason: string | null;
}

/** An event as stored: what was appended (the payload always present), its seq and its delivery count. */
export interface StoredEvent extends Omit<NewEvent, 'payload'> {
  seq: string;
  payload: unknown;
  deliveries: number;
}

export interface ReplayRecord {
  seq: string;
  replayedAt: Date;
  drift: DriftNote[];
  outcome: Outcome;
  reason: string | null;
  answerStatus: number;
  refundReason: string | null;
}

export interface EventStoreOptions {
  /** Most events in one commit (default 500). */
  maxBatch?: number;
  /**
   * Commits in flight at once (default 1). One at a time makes each batch as large as the load:
   * a statement's fixed cost (a round trip, a transaction, a WAL flush) is larger than its rows'
   * at the sizes the gateway commits, and a second commit in flight only halves the batches
   * (measured: more CPU per event, no more throughput; apps/webhook-gateway/README.md).
   */
  maxInFlight?: number;
  /** Called after every commit attempt (metrics). Exceptions ignored. */
  onCommit?: (info: CommitInfo) => void;
}

export interface EventListFilter {
  source?: EventSource;
  eventType?: string;
  outcome?: Outcome;
  /** A seq: only events older than it (the last seq of the previous page). */
  before?: string;
  /** Default 50, at most 1000 (larger asks get 1000). */
  limit?: number;
}

export interface EventStore {
  /**
   * Group commit: concurrent appends are written together, one statement and one transaction per
   * batch; a duplicate dedupeKey (in the store or in the same batch) is not stored again and gets
   * the original's decision. Resolves only after COMMIT succeeded. Rejects with
   * StoreUnavailableError when the commit fails or `deadline` (a performance.now() time) passes
   * first: answer 503, and if the commit lands later the redelivery is a duplicate. Rejects with
   * StoreInputError when the event itself cannot be stored (the field is named).
   */
  append(event: NewEvent, options?: { deadline?: number }): Promise<AppendResult>;
  get(seq: string): Promise<StoredEvent | undefined>;
  getByDedupeKey(key: string): Promise<StoredEvent | undefined>;
  /** Newest first; filters optional; `before` = seq for paging. limit default 50, max 1000. */
  list(filter?: EventListFilter): Promise<StoredEvent[]>;
  /** Keeps the history of replays of an event (table webhook_event_replays); the event row itself is not changed. */
  recordReplay(replay: Omit<ReplayRecord, 'replayedAt'> & { replayedAt?: Date }): Promise<ReplayRecord>;
  /** Oldest first. */
  replays(seq: string): Promise<ReplayRecord[]>;
  /** Waits for queued appends; then further appends reject. */
  close(): Promise<void>;
}

const DEFAULT_MAX_BATCH = 500;
/** Bodies per batch, at most (one larger body goes alone): 500 bodies of the gateway's 1 MiB limit would be one 500 MB statement. */
const MAX_BATCH_BYTES = 16 * 1024 * 1024;
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1000;
const MAX_BIGINT = 9223372036854775807n;

export function createEventStore(db: Database, options: EventStoreOptions = {}): EventStore {
  const maxBatch = positiveInteger('maxBatch', options.maxBatch, DEFAULT_MAX_BATCH);
  const maxInFlight = positiveInteger('maxInFlight', options.maxInFlight, 1);

  const unavailable = (error: unknown): Error => {
    if (error instanceof StoreUnavailableError) return error;
    // A missing table or function: the schema is older than this code.
    const hint = ['42P01', '42883'].includes(sqlState(error) ?? '')
      ? ': the store is not migrated to this version, run the migrations first (migrate(db, [ledgerMigrations]), or paykit-store migrate @paykit/ledger)'
      : '';
    return new StoreUnavailableError(`${db.description} could not commit webhook events: ${messageOf(error)}${hint}`, {
      cause: error,
    });
  };

  const commits = createGroupCommit<PreparedEvent, AppendResult>({
    commit: (events) => commitEvents(db, events, unavailable),
    maxBatch,
    maxBatchWeight: MAX_BATCH_BYTES,
    weigh: (event) => event.rawBody.byteLength,
    maxInFlight,
    onCommit: options.onCommit,
    failureError: unavailable,
    deadlineError: (waitedMs) =>
      new StoreUnavailableError(
        `${db.description} did not commit the event before its deadline (waited ${Math.round(waitedMs)} ms): the database is slow or unreachable; ` +
          'answer 503 so the platform redelivers (should this commit land later, the redelivery is stored as a duplicate)',
      ),
    closedError: () =>
      new StoreUnavailableError(`the event store on ${db.description} is closed: it takes no more appends`),
  });

  const selectOne = async (where: string, value: string): Promise<StoredEvent | undefined> => {
    const { rows } = await db.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM webhook_events WHERE ${where}`, [value]);
    return rows[0] === undefined ? undefined : toStoredEvent(rows[0]);
  };

  return {
    async append(event, appendOptions) {
      const deadline = appendOptions?.deadline;
      if (deadline !== undefined && !Number.isFinite(deadline))
        throw new StoreInputError('deadline must be a performance.now() time in ms (a finite number)');
      return commits.submit(prepareEvent(event), deadline);
    },

    async get(seq) {
      return selectOne('seq = $1::bigint', seqText('seq', seq));
    },

    async getByDedupeKey(key) {
      // Through the key table: the event table is partitioned and holds no index on dedupe_key.
      return selectOne(
        '(seq, received_at) = (SELECT k.seq, k.received_at FROM webhook_event_keys k WHERE k.dedupe_key = $1)',
        text('dedupeKey', key),
      );
    },

    async list(filter = {}) {
      const where: string[] = [];
      const params: unknown[] = [];
      const add = (condition: (placeholder: string) => string, value: unknown): void => {
        params.push(value);
        where.push(condition(`$${params.length}`));
      };
      if (filter.source !== undefined) add((p) => `source = ${p}`, oneOf('source', filter.source, SOURCES));
      if (filter.eventType !== undefined) add((p) => `event_type = ${p}`, text('eventType', filter.eventType));
      if (filter.outcome !== undefined) add((p) => `outcome = ${p}`, oneOf('outcome', filter.outcome, OUTCOMES));
      if (filter.before !== undefined) add((p) => `seq < ${p}::bigint`, seqText('before', filter.before));
      params.push(listLimit(filter.limit));
      const sql = `SELECT ${EVENT_COLUMNS} FROM webhook_events ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY webhook_events.seq DESC LIMIT $${params.length}`;
      const { rows } = await db.query<EventRow>(sql, params);
      return rows.map(toStoredEvent);
    },

    async recordReplay(replay) {
      const seq = seqText('seq', replay.seq);
      const values = [
        seq,
        replay.replayedAt === undefined ? null : timestamp('replayedAt', replay.replayedAt),
        toJsonbText(checkDrift(replay.drift, 'drift'), 'drift'),
        oneOf('outcome', replay.outcome, OUTCOMES),
        nullableText('reason', replay.reason),
        httpStatus('answerStatus', replay.answerStatus),
        nullableText('refundReason', replay.refundReason),
      ];
      // Against a stored event only (no foreign key can say so: the event table is partitioned).
      const { rows } = await db.query<ReplayRow>(
        `INSERT INTO webhook_event_replays (seq, replayed_at, drift, outcome, reason, answer_status, refund_reason)
         SELECT $1::bigint, COALESCE($2::timestamptz, now()), $3::jsonb, $4, $5, $6, $7
         WHERE EXISTS (SELECT 1 FROM webhook_events WHERE seq = $1::bigint)
         RETURNING ${REPLAY_COLUMNS}`,
        values,
      );
      if (rows[0] === undefined)
        throw new StoreInputError(
          `no stored event has seq ${seq}: a replay is recorded against an event in webhook_events (an archived event is restored first: paykit store restore)`,
        );
      return toReplayRecord(rows[0]);
    },

    async replays(seq) {
      const { rows } = await db.query<ReplayRow>(
        `SELECT ${REPLAY_COLUMNS} FROM webhook_event_replays WHERE seq = $1::bigint ORDER BY replayed_at, id`,
        [seqText('seq', seq)],
      );
      return rows.map(toReplayRecord);
    },

    close() {
      return commits.close();
    },
  };
}

function seqText(field: string, value: unknown): string {
  if (typeof value === 'string' && /^\d{1,19}$/.test(value) && BigInt(value) <= MAX_BIGINT) return value;
  throw new StoreInputError(`${field} must be an event seq: a whole number as decimal text, such as "42"`);
}

function listLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1)
    throw new StoreInputError(`limit must be a whole number from 1 to ${MAX_LIMIT}, got ${String(limit)}`);
  return Math.min(limit, MAX_LIMIT);
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1)
    throw new StoreConfigError(`${name} must be a positive whole number, got ${String(value)}`);
  return value;
}
