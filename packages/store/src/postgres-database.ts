// A real PostgreSQL server through a pg Pool. Every wait is bounded on the client side, because a
// connection can freeze without an error (a firewall or NAT forgetting it): the lost query never
// reaches the server, so no server-side timeout or TCP keepalive would end it.
// - connecting, and waiting for a free connection, give up after connectTimeoutMs;
// - every statement (BEGIN and COMMIT included) gives up after queryTimeoutMs, and its connection
//   is destroyed, never handed out again; the idle ones, likely frozen too, are destroyed with it;
// - the server ends a transaction left idle for idleInTransactionTimeoutMs (its client gone), and
//   a statement past queryTimeoutMs (statement_timeout), so neither holds locks nobody waits for.
// Each of those failures is a StoreUnavailableError: the caller answers 503 and retries later.
// Every connection starts with JIT off (`options: -c jit=off`, unless DATABASE_URL sets `options`
// itself). paykit's statements are short, but the planner costs the reads that compute ledger items
// over a day range far past jit_above_cost: the server then spent 5 to 6 s compiling a statement it
// runs in 0.2 s (the console's first page of 13,000 items; EXPLAIN ANALYZE "JIT: … Optimization
// 3160 ms, Emission 2417 ms"), and the compile time grew with the estimate, not with the work.
import net from 'node:net';
import pg from 'pg';
import { isConfigProblem, isQueryTimeout, isUnavailable, messageOf } from './connection-errors.ts';
import type { ConnectionStats, Database, DatabaseOptions, QueryResult, Queryable } from './database.ts';
import { parseDatabaseUrl } from './database-url.ts';
import { StoreConfigError, StoreUnavailableError } from './errors.ts';
import { withTimeout } from './timeout.ts';

export const DEFAULT_POOL_SIZE = 10;
export const DEFAULT_CONNECT_TIMEOUT_MS = 2000;
export const DEFAULT_QUERY_TIMEOUT_MS = 10_000;
/** Pooled connections unused this long are closed (pg-pool's own default, said here). */
const IDLE_CLOSE_MS = 10_000;
/** How long close() lets the statements in flight finish before it destroys their connections. */
const CLOSE_GRACE_MS = 3_000;
/** TCP keepalive probes start after this much silence, so the OS too ends a dead idle socket. */
const KEEPALIVE_DELAY_MS = 10_000;

/** A pg Client that keeps its socket, so a frozen connection can be destroyed from outside. */
class TrackedClient extends pg.Client {
  readonly socket: net.Socket;
  constructor(config: pg.ClientConfig) {
    let socket: net.Socket | undefined;
    super({ ...config, stream: () => (socket = new net.Socket()) });
    if (socket === undefined) throw new Error('pg did not open its socket through the stream option');
    this.socket = socket;
  }
}

export async function openPostgres(databaseUrl: string, options: DatabaseOptions): Promise<Database> {
  const { connectionString, description } = parseDatabaseUrl(databaseUrl);
  const poolSize = positiveInteger(options.poolSize, DEFAULT_POOL_SIZE, 'poolSize');
  const connectTimeoutMs = positiveInteger(options.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS, 'connectTimeoutMs');
  const queryTimeoutMs = positiveInteger(options.queryTimeoutMs, DEFAULT_QUERY_TIMEOUT_MS, 'queryTimeoutMs');
  const idleInTransactionTimeoutMs = positiveInteger(
    options.idleInTransactionTimeoutMs,
    2 * queryTimeoutMs,
    'idleInTransactionTimeoutMs',
  );
  const config: pg.ClientConfig = {
    connectionString,
    query_timeout: queryTimeoutMs,
    statement_timeout: queryTimeoutMs,
    idle_in_transaction_session_timeout: idleInTransactionTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    options: '-c jit=off',
  };
  const pool = new pg.Pool({
    ...config,
    max: poolSize,
    connectionTimeoutMillis: connectTimeoutMs,
    idleTimeoutMillis: IDLE_CLOSE_MS,
    // pg-pool constructs its clients with `new Client(options)`; its typings omit the argument.
    Client: TrackedClient as unknown as new () => pg.ClientBase,
  });
  // An idle connection that dies (server restart, a cut network) is reported here; the pool has
  // already dropped it and the next query opens a new one. Without a listener it would crash the process.
  pool.on('error', () => {});
  const db = new PostgresDatabase(pool, description, { connectTimeoutMs, queryTimeoutMs });
  try {
    await db.ping(connectTimeoutMs + 1000);
  } catch (error) {
    await db.close();
    const cause = error instanceof StoreUnavailableError ? error.cause : error;
    if (isConfigProblem(cause)) {
      throw new StoreConfigError(
        `${description} refused us: ${messageOf(cause)}; check the user, password and database name in DATABASE_URL (and that the database exists)`,
        { cause },
      );
    }
    throw error;
  }
  return db;
}

class PostgresDatabase implements Database {
  readonly kind = 'postgres';
  readonly description: string;
  readonly #pool: pg.Pool;
  readonly #limits: { connectTimeoutMs: number; queryTimeoutMs: number };
  /** Every connection not yet ended, and since when each checked-out one is in use. */
  readonly #clients = new Set<TrackedClient>();
  readonly #busySince = new Map<object, number>();
  #timedOut = 0;
  #closing: Promise<void> | undefined;

  constructor(pool: pg.Pool, description: string, limits: { connectTimeoutMs: number; queryTimeoutMs: number }) {
    this.#pool = pool;
    this.description = description;
    this.#limits = limits;
    pool.on('connect', (client) => {
      if (client instanceof TrackedClient) this.#clients.add(client);
    });
    pool.on('acquire', (client) => this.#busySince.set(client, performance.now()));
    pool.on('release', (_error, client) => this.#busySince.delete(client));
    pool.on('remove', (client) => {
      if (client instanceof TrackedClient) this.#clients.delete(client);
      this.#busySince.delete(client);
    });
  }

  async query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
    return this.#withClient(async (client) =>
      normalize<R>(await client.query(sql, params === undefined ? undefined : [...params])),
    );
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.#withClient(async (client, discard) => {
      await client.query('BEGIN');
      let result: T;
      try {
        result = await fn({
          query: async <R>(sql: string, params?: readonly unknown[]) =>
            normalize<R>(await client.query(sql, params === undefined ? undefined : [...params])),
        });
      } catch (error) {
        // A frozen or lost connection would not answer ROLLBACK either: #withClient destroys it, and
        // the server rolls the transaction back when it notices (idle_in_transaction_session_timeout).
        if (!isUnavailable(error)) {
          try {
            await client.query('ROLLBACK');
          } catch (rollbackError) {
            // The connection itself is broken: the pool must not hand it out again.
            discard(rollbackError);
          }
        }
        throw error;
      }
      await client.query('COMMIT');
      return result;
    });
  }

  /**
   * Runs `work` on a connection of its own. A connection that failed as unavailable (lost, or past
   * its deadline) is destroyed on release, never handed out again; a statement's own error keeps it.
   */
  async #withClient<T>(work: (client: pg.PoolClient, discard: (reason: unknown) => void) => Promise<T>): Promise<T> {
    this.#assertOpen();
    let client: pg.PoolClient;
    try {
      client = await this.#checkout();
    } catch (error) {
      throw this.#translate(error);
    }
    // A connection lost while checked out is reported as an 'error' event besides failing the
    // statement in progress; without a listener that event would crash the process.
    const onError = (): void => {};
    client.on('error', onError);
    let broken: Error | undefined;
    const discard = (reason: unknown): void => {
      broken ??= reason instanceof Error ? reason : new Error(String(reason));
    };
    try {
      return await work(client, discard);
    } catch (error) {
      if (isUnavailable(error)) discard(error);
      throw this.#translate(error);
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  /** A pooled connection, skipping those destroyed by a deadline elsewhere that the pool has not dropped yet. */
  async #checkout(): Promise<pg.PoolClient> {
    for (;;) {
      const client = await this.#pool.connect();
      if (!(client instanceof TrackedClient) || !client.socket.destroyed) return client;
      client.release(true);
    }
  }

  async ping(timeoutMs: number): Promise<void> {
    await withTimeout(
      this.query('SELECT 1'),
      timeoutMs,
      () =>
        new StoreUnavailableError(
          `${this.description} did not answer SELECT 1 within ${timeoutMs} ms: check that the server is up and reachable`,
        ),
    );
  }

  connections(): ConnectionStats {
    const now = performance.now();
    let longestBusyMs = 0;
    for (const since of this.#busySince.values()) longestBusyMs = Math.max(longestBusyMs, now - since);
    return {
      open: this.#pool.totalCount,
      busy: this.#busySince.size,
      waiting: this.#pool.waitingCount,
      longestBusyMs: Math.round(longestBusyMs),
      timedOut: this.#timedOut,
      queryTimeoutMs: this.#limits.queryTimeoutMs,
    };
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      // pool.end() waits for the connections in use and ends the idle ones politely; a frozen
      // socket never confirms, and a stop must not wait a whole statement deadline: whatever is
      // left after CLOSE_GRACE_MS is destroyed (a transaction cut so is rolled back by the server).
      const ended = this.#pool.end().catch(() => {});
      await Promise.race([
        ended,
        new Promise((resolve) => setTimeout(resolve, Math.min(CLOSE_GRACE_MS, this.#limits.queryTimeoutMs)).unref()),
      ]);
      for (const client of this.#clients) client.socket.destroy();
      this.#clients.clear();
    })();
    return this.#closing;
  }

  #assertOpen(): void {
    if (this.#closing) throw new StoreUnavailableError(`${this.description} is closed: open the database again`);
  }

  /** A statement that got no answer in time: its connection is gone, and the idle ones likely froze with it. */
  #onQueryTimeout(): void {
    this.#timedOut++;
    for (const client of this.#clients) {
      // Destroying an idle connection makes pg-pool drop it; a fresh one is opened when needed.
      if (!this.#busySince.has(client)) client.socket.destroy();
    }
  }

  #translate(error: unknown): unknown {
    if (error instanceof StoreUnavailableError) return error;
    if (isQueryTimeout(error)) {
      this.#onQueryTimeout();
      return new StoreUnavailableError(
        `${this.description} did not answer a statement within ${this.#limits.queryTimeoutMs} ms (DATABASE_QUERY_TIMEOUT_MS): the connection was dropped; check that the server is up and reachable`,
        { cause: error },
      );
    }
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
  if (!Number.isInteger(value) || value < 1)
    throw new StoreConfigError(`${name} must be a positive whole number, got ${String(value)}`);
  return value;
}
