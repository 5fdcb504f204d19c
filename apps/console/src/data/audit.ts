// The console's audit trail (console_audit, migration 0019): every login (right, wrong or refused),
// every logout, every action (retrying parked events, releasing held money; a viewer's refused) and
// every change to an operator (`paykit operators`, written by @paykit/store) is a row with who
// (the operator: "console" for CONSOLE_PASSWORD's one operator; empty on a console without a
// password, which answers this machine only), when (the console's clock), from where (the client
// address), what (the action and its target), and the outcome. Its page and exports read it in
// keyset pages, newest first by default (../pages/routes.ts, ../exports/routes.ts).
import {
  allRows,
  keysetPage,
  pickOrder,
  type KeyColumn,
  type Page,
  type PageRequest,
  type Queryable,
} from '@paykit/store';

export type AuditAction =
  | 'login'
  | 'logout'
  | 'retry-parked'
  | 'release-held'
  // Written by @paykit/store's operators with the change (`paykit operators`), from "cli".
  | 'operator-add'
  | 'operator-reset'
  | 'operator-disable'
  | 'operator-role';
export type AuditOutcome = 'success' | 'failure' | 'refused';

export interface AuditEntry {
  at: Date;
  /** null: no login (a console without a password, this machine only). */
  operator: string | null;
  address: string;
  action: AuditAction;
  /** What the action was on (a held credit's id); null when it names none. */
  target: string | null;
  outcome: AuditOutcome;
  /** Why it failed or was refused, or what it did ("3 events queued"). */
  detail: string | null;
}

export interface AuditRecord extends AuditEntry {
  id: string;
}

export const AUDIT_ACTIONS: readonly AuditAction[] = [
  'login',
  'logout',
  'retry-parked',
  'release-held',
  'operator-add',
  'operator-reset',
  'operator-disable',
  'operator-role',
];
export const AUDIT_OUTCOMES: readonly AuditOutcome[] = ['success', 'failure', 'refused'];

const MAX_TEXT = 500;
const cut = (text: string | null) => (text === null ? null : text.slice(0, MAX_TEXT));

/** Writes `entry` (on `db`, or inside the transaction of the action it records). */
export async function recordAudit(db: Queryable, entry: AuditEntry): Promise<void> {
  await db.query(
    `INSERT INTO console_audit (at, operator, address, action, target, outcome, detail)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      entry.at,
      cut(entry.operator),
      cut(entry.address) ?? '',
      entry.action,
      cut(entry.target),
      entry.outcome,
      cut(entry.detail),
    ],
  );
}

const SORTS: Record<string, readonly KeyColumn[]> = {
  at: [
    { expr: 'at', type: 'timestamptz' },
    { expr: 'id', type: 'bigint' },
  ],
};

export interface AuditFilter extends PageRequest {
  actions?: readonly AuditAction[];
  outcomes?: readonly AuditOutcome[];
  /** `at` (oldest first) or `-at` (newest first, the default). */
  sort?: string;
}

function auditQuery(filter: AuditFilter) {
  return {
    select: 'id::text AS id, at, operator, address, action, target, outcome, detail',
    from: 'console_audit',
    where:
      '(cardinality($1::text[]) = 0 OR action = ANY($1::text[])) AND (cardinality($2::text[]) = 0 OR outcome = ANY($2::text[]))',
    params: [filter.actions ?? [], filter.outcomes ?? []],
  };
}

const toRecord = (row: Record<string, unknown>): AuditRecord => ({
  id: String(row.id),
  at: row.at instanceof Date ? row.at : new Date(String(row.at)),
  operator: (row.operator as string | null) ?? null,
  address: String(row.address),
  action: row.action as AuditAction,
  target: (row.target as string | null) ?? null,
  outcome: row.outcome as AuditOutcome,
  detail: (row.detail as string | null) ?? null,
});

export async function pageAudit(db: Queryable, filter: AuditFilter = {}): Promise<Page<AuditRecord>> {
  const { order } = pickOrder(SORTS, filter.sort, '-at');
  const page = await keysetPage(db, auditQuery(filter), order, filter);
  return { rows: page.rows.map(toRecord), total: page.total, next: page.next, prev: page.prev };
}

export async function* allAudit(db: Queryable, filter: AuditFilter = {}): AsyncGenerator<AuditRecord> {
  const { order } = pickOrder(SORTS, filter.sort, '-at');
  for await (const row of allRows(db, auditQuery(filter), order)) yield toRecord(row);
}
