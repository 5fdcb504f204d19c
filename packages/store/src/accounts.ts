// The platform accounts the company knows, by CLABE. MONEY_IN decisions read them on the hot path,
// so lookups are batched: every lookup made in the same turn of the event loop (however many
// requests asked) is one query, WHERE clabe = ANY($1). Nothing is cached here: a status change is
// seen by the very next lookup. A caller that keeps accounts in memory anyway (the gateway) commits
// each decision with the version of the account it read (NewEvent.accountGuard), so a decision
// taken on an account that changed meanwhile is taken again, never stored.
import type { Database, Queryable } from './database.ts';
import { StoreInputError, StoreUnavailableError } from './errors.ts';
import { withTimeout } from './timeout.ts';
import { nullableText, oneOf } from './event-input.ts';

export type AccountStatus = 'ACTIVE' | 'BLOCKED' | 'CANCELLED';

export interface Account {
  clabe: string;
  ownerId: string | null;
  status: AccountStatus;
  /** decimal string, two decimals; null = no limit */
  creditLimit: string | null;
  updatedAt: Date;
  /**
   * The row's version: it changes with every write to the account (PostgreSQL's xmin, as text).
   * NewEvent.accountGuard compares it to tell whether a decision read the account as it is.
   */
  version: string;
}

export interface AccountStore {
  /** Inserts or replaces the account. StoreInputError for a CLABE that is not 18 digits or a limit that is not "1234.56". */
  upsert(account: Omit<Account, 'updatedAt' | 'version'>): Promise<Account>;
  /**
   * Adds the account as ACTIVE, or, when it is known, sets the owner and credit limit given (the
   * ones not given stay) and never its status: one statement, so a block or a cancel made meanwhile
   * is never undone. `added` is false for an account that was known.
   */
  add(account: {
    clabe: string;
    ownerId?: string;
    creditLimit?: string;
  }): Promise<{ account: Account; added: boolean }>;
  /** undefined when no such account. */
  setStatus(clabe: string, status: AccountStatus): Promise<Account | undefined>;
  /** undefined when unknown (or not CLABE-shaped: it cannot be known). */
  get(clabe: string): Promise<Account | undefined>;
  /**
   * Batches: every lookup made in the same tick is ONE query (WHERE clabe = ANY($1)). Unknown or
   * malformed → undefined. Past `deadline` (a performance.now() time, as for append) it rejects
   * with StoreUnavailableError; the query itself goes on for the others waiting on it.
   */
  lookup(clabe: string, options?: { deadline?: number }): Promise<Account | undefined>;
  /** Every account, by CLABE. */
  list(): Promise<Account[]>;
}

const STATUSES: readonly AccountStatus[] = ['ACTIVE', 'BLOCKED', 'CANCELLED'];
const CLABE = /^\d{18}$/;
// numeric(18,2): up to 16 digits before the point, exactly two after, never negative.
const MONEY = /^(0|[1-9]\d{0,15})\.\d{2}$/;
const COLUMNS = 'clabe, owner_id, status, credit_limit::text AS credit_limit, updated_at, xmin::text AS version';

interface AccountRow {
  clabe: string;
  owner_id: string | null;
  status: AccountStatus;
  credit_limit: string | null;
  updated_at: Date;
  version: string;
}

interface PendingLookup {
  resolve: (account: Account | undefined) => void;
  reject: (error: unknown) => void;
}

export function createAccountStore(db: Database): AccountStore {
  let pending = new Map<string, PendingLookup[]>();

  const flush = async (): Promise<void> => {
    const batch = pending;
    pending = new Map();
    try {
      const found = await readAccounts(db, [...batch.keys()]);
      for (const [clabe, waiters] of batch) for (const waiter of waiters) waiter.resolve(found.get(clabe));
    } catch (error) {
      for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
    }
  };

  return {
    async upsert(account) {
      if (typeof account !== 'object' || account === null)
        throw new StoreInputError('upsert takes an account: { clabe, ownerId, status, creditLimit }');
      const values = [
        clabeOf(account.clabe),
        nullableText('ownerId', account.ownerId),
        oneOf('status', account.status, STATUSES),
        creditLimitOf(account.creditLimit),
      ];
      const { rows } = await db.query<AccountRow>(
        `INSERT INTO accounts (clabe, owner_id, status, credit_limit) VALUES ($1, $2, $3, $4::numeric)
         ON CONFLICT (clabe) DO UPDATE SET owner_id = EXCLUDED.owner_id, status = EXCLUDED.status, credit_limit = EXCLUDED.credit_limit, updated_at = now()
         RETURNING ${COLUMNS}`,
        values,
      );
      return toAccount(rows[0]!);
    },

    async add(account) {
      if (typeof account !== 'object' || account === null)
        throw new StoreInputError('add takes an account: { clabe, ownerId?, creditLimit? }');
      const { rows } = await db.query<AccountRow & { added: boolean }>(
        `INSERT INTO accounts (clabe, owner_id, status, credit_limit) VALUES ($1, $2, 'ACTIVE', $3::numeric)
         ON CONFLICT (clabe) DO UPDATE SET owner_id = coalesce($2, accounts.owner_id),
           credit_limit = coalesce($3::numeric, accounts.credit_limit), updated_at = now()
         RETURNING ${COLUMNS}, (xmax = 0) AS added`,
        [
          clabeOf(account.clabe),
          nullableText('ownerId', account.ownerId ?? null),
          creditLimitOf(account.creditLimit ?? null),
        ],
      );
      return { account: toAccount(rows[0]!), added: rows[0]!.added };
    },

    async setStatus(clabe, status) {
      const { rows } = await db.query<AccountRow>(
        `UPDATE accounts SET status = $2, updated_at = now() WHERE clabe = $1 RETURNING ${COLUMNS}`,
        [clabeOf(clabe), oneOf('status', status, STATUSES)],
      );
      return rows[0] === undefined ? undefined : toAccount(rows[0]);
    },

    async get(clabe) {
      if (!isClabeShaped(clabe)) return undefined;
      const { rows } = await db.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE clabe = $1`, [clabe]);
      return rows[0] === undefined ? undefined : toAccount(rows[0]);
    },

    lookup(clabe, options) {
      // A beneficiary CLABE comes from an event: a malformed one is simply not an account we know.
      if (!isClabeShaped(clabe)) return Promise.resolve(undefined);
      const looked = new Promise<Account | undefined>((resolve, reject) => {
        if (pending.size === 0) {
          // setImmediate runs after this turn's I/O callbacks: lookups from every request read
          // in the same turn share the query, at the cost of no timer delay.
          setImmediate(() => void flush());
        }
        const waiters = pending.get(clabe);
        if (waiters) waiters.push({ resolve, reject });
        else pending.set(clabe, [{ resolve, reject }]);
      });
      const deadline = options?.deadline;
      if (deadline === undefined) return looked;
      const unavailable = () =>
        new StoreUnavailableError(
          `${db.description} did not answer the account lookup before its deadline: the database is slow or unreachable`,
        );
      const remaining = deadline - performance.now();
      if (remaining <= 0) {
        looked.catch(() => {});
        return Promise.reject(unavailable());
      }
      return withTimeout(looked, remaining, unavailable);
    },

    async list() {
      const { rows } = await db.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts ORDER BY clabe`);
      return rows.map(toAccount);
    },
  };
}

/** The accounts among `clabes` that exist, by CLABE (one statement; a malformed CLABE is simply not found). */
export async function readAccounts(db: Queryable, clabes: readonly string[]): Promise<Map<string, Account>> {
  const { rows } = await db.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE clabe = ANY($1::text[])`, [
    [...new Set(clabes)],
  ]);
  return new Map(rows.map((row) => [row.clabe, toAccount(row)]));
}

function isClabeShaped(value: unknown): value is string {
  return typeof value === 'string' && CLABE.test(value);
}

/** Error messages never repeat the CLABE: an account number is personal data that ends up in logs. */
function clabeOf(value: unknown): string {
  if (isClabeShaped(value)) return value;
  if (typeof value !== 'string') {
    throw new StoreInputError(
      `clabe must be a string of 18 digits, got ${value === null ? 'null' : typeof value}${typeof value === 'number' ? ' (a number loses leading zeros)' : ''}`,
    );
  }
  const hint = /[\s-]/.test(value)
    ? ': remove spaces and dashes'
    : /\D/.test(value)
      ? ': it has characters other than digits'
      : '';
  throw new StoreInputError(`clabe must be exactly 18 digits, this one has ${value.length} characters${hint}`);
}

function creditLimitOf(value: unknown): string | null {
  if (value === null) return null;
  if (typeof value !== 'string') {
    throw new StoreInputError(
      `creditLimit must be a decimal string with two decimals such as "15000.00", or null for no limit; got ${typeof value === 'number' ? `the number ${value} (money is never a float: pass "${Number.isFinite(value) ? value.toFixed(2) : '…'}")` : typeof value}`,
    );
  }
  if (!MONEY.test(value)) {
    throw new StoreInputError(
      `creditLimit must be MXN with exactly two decimals and at most 16 digits before the point, such as "15000.00" (not negative, no commas or currency sign); got "${value.slice(0, 30)}"`,
    );
  }
  return value;
}

function toAccount(row: AccountRow): Account {
  return {
    clabe: row.clabe,
    ownerId: row.owner_id,
    status: row.status,
    creditLimit: row.credit_limit,
    updatedAt: row.updated_at,
    version: row.version,
  };
}
