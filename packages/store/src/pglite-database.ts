// PGlite: PostgreSQL compiled to WASM, in this process. One connection, so statements run one at a
// time; durable on disk (each commit is flushed) unless the data directory is 'memory://'.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite, types } from '@electric-sql/pglite';
import type { Transaction } from '@electric-sql/pglite';
import { isUnavailable, messageOf } from './connection-errors.ts';
import type { ConnectionStats, Database, QueryResult, Queryable } from './database.ts';
import { StoreConfigError, StoreUnavailableError } from './errors.ts';
import { acquireDataDirLock } from './data-dir-lock.ts';
import { withTimeout } from './timeout.ts';

const MEMORY = 'memory://';

/** pg's conventions, so both kinds hand back the same values: int8 as text (a bigint seq must not lose digits past 2^53; PGlite would make it a number). */
const PARSERS = { [types.INT8]: (value: string) => value };

/**
 * Opens PGlite at `dataDir` ('memory://' in memory). `loadDataDir`: start from a copy of another
 * database (`dumpPglite`) instead of an empty one, which spares initdb (tests start each fresh
 * in-memory database from one migrated copy).
 */
export async function openPglite(dataDir: string | undefined, options: { loadDataDir?: Blob } = {}): Promise<Database> {
  const inMemory = dataDir === MEMORY;
  const directory = inMemory ? MEMORY : path.resolve(dataDir ?? path.join('.data', 'pglite'));
  const description = inMemory ? 'PGlite in memory' : `PGlite at ${directory}`;
  let release = (): void => {};
  if (!inMemory) {
    try {
      mkdirSync(directory, { recursive: true });
    } catch (error) {
      throw new StoreConfigError(
        `cannot create the PGlite data directory ${directory}: ${messageOf(error)}; pick another with PAYKIT_DATA_DIR or fix its permissions`,
      );
    }
    release = acquireDataDirLock(directory);
  }
  let pg: PGlite;
  try {
    pg = await PGlite.create(directory, {
      parsers: PARSERS,
      ...(options.loadDataDir === undefined ? {} : { loadDataDir: options.loadDataDir }),
    });
  } catch (error) {
    release();
    throw new StoreConfigError(
      `cannot open ${description}: ${messageOf(error)}; if the folder holds something other than a PGlite database (or one from another PGlite version), move it away to start empty`,
    );
  }
  return new PgliteDatabase(pg, description, release);
}

/** A copy of a PGlite database's files, for `openPglite`'s `loadDataDir`. */
export async function dumpPglite(db: Database): Promise<Blob> {
  if (!(db instanceof PgliteDatabase))
    throw new StoreConfigError(`only a PGlite database can be dumped, not ${db.description}`);
  return db.dump();
}

class PgliteDatabase implements Database {
  readonly kind = 'pglite';
  readonly description: string;
  readonly #pg: PGlite;
  readonly #release: () => void;
  #closing: Promise<void> | undefined;
  /** When each call now in progress started (they queue for PGlite's one connection). */
  readonly #inProgress = new Set<{ since: number }>();

  constructor(pg: PGlite, description: string, release: () => void) {
    this.#pg = pg;
    this.description = description;
    this.#release = release;
  }

  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
    return this.#guard(() => run<R>(this.#pg, sql, params));
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.#guard(() => this.#pg.transaction((tx) => fn({ query: (sql, params) => run(tx, sql, params) })));
  }

  async ping(timeoutMs: number): Promise<void> {
    // A long transaction holds PGlite's only connection: that is "not answering" too.
    await withTimeout(
      this.query('SELECT 1'),
      timeoutMs,
      () =>
        new StoreUnavailableError(
          `${this.description} did not answer SELECT 1 within ${timeoutMs} ms: a long transaction may be holding its only connection`,
        ),
    );
  }

  connections(): ConnectionStats {
    const now = performance.now();
    let longestBusyMs = 0;
    for (const call of this.#inProgress) longestBusyMs = Math.max(longestBusyMs, now - call.since);
    const calls = this.#inProgress.size;
    // In this process, no network: nothing to freeze, so no statement deadline (queryTimeoutMs 0).
    return {
      open: this.#closing ? 0 : 1,
      busy: Math.min(calls, 1),
      waiting: Math.max(calls - 1, 0),
      longestBusyMs: Math.round(longestBusyMs),
      timedOut: 0,
      queryTimeoutMs: 0,
    };
  }

  dump(): Promise<Blob> {
    return this.#guard(() => this.#pg.dumpDataDir('none'));
  }

  close(): Promise<void> {
    this.#closing ??= this.#pg.close().finally(this.#release);
    return this.#closing;
  }

  async #guard<T>(work: () => Promise<T>): Promise<T> {
    if (this.#closing) throw new StoreUnavailableError(`${this.description} is closed: open the database again`);
    const call = { since: performance.now() };
    this.#inProgress.add(call);
    try {
      return await work();
    } catch (error) {
      if (isUnavailable(error))
        throw new StoreUnavailableError(`${this.description} is unavailable: ${messageOf(error)}`, { cause: error });
      throw error;
    } finally {
      this.#inProgress.delete(call);
    }
  }
}

/** Parameters → the extended protocol (one statement); none → the simple protocol, like pg, so a migration file can hold several statements. */
async function run<R>(
  target: PGlite | Transaction,
  sql: string,
  params: readonly unknown[] | undefined,
): Promise<QueryResult<R>> {
  if (params === undefined || params.length === 0) {
    const results = await target.exec(sql);
    const last = results.at(-1);
    const rows = (last?.rows ?? []) as R[];
    return { rows, rowCount: last?.rowCount ?? rows.length };
  }
  const result = await target.query<R>(sql, [...params]);
  return { rows: result.rows, rowCount: result.rowCount ?? result.rows.length };
}
