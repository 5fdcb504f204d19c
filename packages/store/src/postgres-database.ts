// A real PostgreSQL server through a pg Pool. Connection attempts give up after connectTimeoutMs so
// an outage shows as StoreUnavailableError quickly (the gateway has 5 s to answer), and a pool whose
// connections were cut reconnects by itself on the next query.
import pg from 'pg';
import { isConfigProblem, isUnavailable, messageOf } from './connection-errors.ts';
import type { Database, DatabaseOptions, QueryResult, Queryable } from './database.ts';
import { parseDatabaseUrl } from './database-url.ts';
import { StoreConfigError, StoreUnavailableError } from './errors.ts';
import { withTimeout } from './timeout.ts';

const DEFAULT_POOL_SIZE = 10;
const DEFAULT_CONNECT_TIMEOUT_MS = 2000;

export async function openPostgres(databaseUrl: string, options: DatabaseOptions): Promise<Database> {
  const { connectionString, description } = parseDatabaseUrl(databaseUrl);
  const poolSize = positiveInteger(options.poolSize, DEFAULT_POOL_SIZE, 'poolSize');
  const connectTimeoutMs = positiveInteger(options.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS, 'connectTimeoutMs');
  const pool = new pg.Pool({ connectionString, max: poolSize, connectionTimeoutMillis: connectTimeoutMs, keepAlive: true });
  // An idle connection that dies (server restart, a cut network) is reported here; the pool has
  // already dropped it and the next query opens a new one. Without a listener it would crash the process.
  pool.on('error', () => {});
  const db = new PostgresDatabase(pool, description);
  try {
    await db.ping(connectTimeoutMs + 1000);
  } catch (error) {
    await db.close();
    const cause = error instanceof StoreUnavailableError ? error.cause : error;
    if (isConfigProblem(cause)) {
      throw new StoreConfigError(`${description} refused us: ${messageOf(cause)}; check the user, password and database name in DATABASE_URL (and that the database exists)`, { cause });
    }
    throw error;
  }
  return db;
}

class PostgresDatabase implements Database {
  readonly kind = 'postgres';
  readonly description: string;
  readonly #pool: pg.Pool;
  #closing: Promise<void> | undefined;

  constructor(pool: pg.Pool, description: string) {
    this.#pool = pool;
    this.description = description;
  }

  async query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
    this.#assertOpen();
    try {
      return normalize<R>(await this.#pool.query(sql, params === undefined ? undefined : [...params]));
    } catch (error) {
      throw this.#translate(error);
    }
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    this.#assertOpen();
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw this.#translate(error);
    }
    // A connection lost while checked out is reported as an 'error' event besides failing the
    // query in progress; without a listener that event would crash the process.
    const onError = (): void => {};
    client.on('error', onError);
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await fn({
        query: async <R>(sql: string, params?: readonly unknown[]) => normalize<R>(await client.query(sql, params === undefined ? undefined : [...params])),
      });
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        // The connection itself is broken: the pool must not hand it out again.
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      }
      throw this.#translate(error);
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  async ping(timeoutMs: number): Promise<void> {
    await withTimeout(
      this.query('SELECT 1'),
      timeoutMs,
      () => new StoreUnavailableError(`${this.description} did not answer SELECT 1 within ${timeoutMs} ms: check that the server is up and reachable`),
    );
  }

  close(): Promise<void> {
    this.#closing ??= this.#pool.end();
    return this.#closing;
  }

  #assertOpen(): void {
    if (this.#closing) throw new StoreUnavailableError(`${this.description} is closed: open the database again`);
  }

  #translate(error: unknown): unknown {
    if (error instanceof StoreUnavailableError) return error;
    if (isUnavailable(error) || isConfigProblem(error)) {
      return new StoreUnavailableError(
        `${this.description} is unavailable: ${messageOf(error)}; check that the server is running and reachable and that DATABASE_URL points at it`,
        { cause: error },
      );
    }
    return error;
  }
}

/** pg answers a script of several statements with one result per statement: keep the last, like PGlite's side. */
function normalize<R>(result: pg.QueryResult | pg.QueryResult[]): QueryResult<R> {
  const last = Array.isArray(result) ? result.at(-1) : result;
  const rows = (last?.rows ?? []) as R[];
  return { rows, rowCount: last?.rowCount ?? rows.length };
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new StoreConfigError(`${name} must be a positive whole number, got ${String(value)}`);
  return value;
}
