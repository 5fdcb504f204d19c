// The console's logins in the database (console_sessions, packages/store migration 0019), as the
// store @fastify/session calls: every replica of the console reads the same rows, and a restart
// loses none. A row is keyed by the SHA-256 of the session id, so the table holds nothing a cookie
// can be made from; it expires at the time the login was given (the console's clock, so a test
// can move it), whatever the cookie says. Logging out deletes the row: every replica refuses the
// cookie from then on. Expired rows are deleted as logins are written.
import { createHash, randomBytes } from 'node:crypto';
import type { Database, OperatorRole } from '@paykit/store';
import type { FastifySessionObject } from '@fastify/session';
import type * as Fastify from 'fastify';

/** What a console login holds. */
export interface ConsoleLogin {
  /** Who logged in: a named operator, or "console" (the one operator of CONSOLE_PASSWORD). */
  operator: string;
  /**
   * What they may do; a named operator's is read from their row at every request. Absent from a
   * CONSOLE_PASSWORD login made before logins had roles: that one is an operator's.
   */
  role?: OperatorRole;
  /** When, as an ISO time. */
  loginAt: string;
  /**
   * CONSOLE_PASSWORD's operator: which password it was made with (login.ts `passwordMark`). A
   * login made with another CONSOLE_PASSWORD than the console's now is not one, so a new password
   * ends every such login.
   */
  mark?: string;
  /**
   * A named operator: the credential it was made under (console_operators.credential). A reset or
   * a disable moves the operator's on, and the login is gone at its next request, on every replica.
   */
  credential?: number;
}

declare module 'fastify' {
  interface Session {
    login?: ConsoleLogin;
  }
}

type Callback = (error?: unknown) => void;
type CallbackSession = (error: unknown, session?: Fastify.Session | null) => void;

const hashOf = (sessionId: string) => createHash('sha256').update(sessionId).digest('base64url');

export class DatabaseSessionStore {
  readonly #db: Database;
  readonly #now: () => Date;
  readonly #lifetimeMs: number;

  constructor(db: Database, options: { now: () => Date; lifetimeMinutes: number }) {
    this.#db = db;
    this.#now = options.now;
    this.#lifetimeMs = options.lifetimeMinutes * 60_000;
  }

  set(sessionId: string, session: Fastify.Session, callback: Callback): void {
    const now = this.#now();
    const data = JSON.stringify({ ...(session as FastifySessionObject), cookie: undefined });
    // A session is inserted before it holds a login (the login regenerates it, then writes the
    // login in): one that holds one is only ever updated, so a write racing a logout on another
    // replica cannot bring the row back.
    const write = session.login
      ? this.#db.query('UPDATE console_sessions SET data = $2::jsonb WHERE id_hash = $1 AND expires_at > $3', [
          hashOf(sessionId),
          data,
          now,
        ])
      : this.#db.query(
          `WITH gone AS (DELETE FROM console_sessions WHERE expires_at <= $3)
           INSERT INTO console_sessions (id_hash, data, created_at, expires_at) VALUES ($1, $2::jsonb, $3, $4)
           ON CONFLICT (id_hash) DO UPDATE SET data = excluded.data`,
          [hashOf(sessionId), data, now, new Date(now.getTime() + this.#lifetimeMs)],
        );
    write.then(
      () => callback(),
      (error: unknown) => callback(error),
    );
  }

  get(sessionId: string, callback: CallbackSession): void {
    // A named operator's login is read with their row: one that was disabled, or whose password
    // was reset, since the login is no login (the row goes); their role is the row's now.
    this.#db
      .query<{
        data: Fastify.Session | string;
        role: OperatorRole | null;
        status: string | null;
        credential: number | null;
      }>(
        `SELECT s.data, o.role, o.status, o.credential FROM console_sessions s
           LEFT JOIN console_operators o ON o.name = s.data->'login'->>'operator'
         WHERE s.id_hash = $1 AND s.expires_at > $2`,
        [hashOf(sessionId), this.#now()],
      )
      .then(async ({ rows }): Promise<Fastify.Session | null> => {
        const row = rows[0];
        if (row === undefined) return null;
        const session = (typeof row.data === 'string' ? JSON.parse(row.data) : row.data) as Fastify.Session;
        const login = session.login;
        if (login?.credential !== undefined) {
          if (row.status !== 'active' || Number(row.credential) !== login.credential) {
            await this.#db.query('DELETE FROM console_sessions WHERE id_hash = $1', [hashOf(sessionId)]);
            return null;
          }
          login.role = row.role!;
        }
        return session;
      })
      .then(
        (session) => callback(null, session),
        (error: unknown) => callback(error),
      );
  }
  destroy(sessionId: string, callback: Callback): void {
    this.#db.query('DELETE FROM console_sessions WHERE id_hash = $1', [hashOf(sessionId)]).then(
      () => callback(),
      (error: unknown) => callback(error),
    );
  }

  /** Ends every login at once (the operator's password changed, or a breach): returns how many. */
  async destroyAll(): Promise<number> {
    const { rows } = await this.#db.query<{ n: number }>(
      'WITH gone AS (DELETE FROM console_sessions RETURNING 1) SELECT count(*)::int AS n FROM gone',
    );
    return rows[0]!.n;
  }
}

/**
 * The key that signs the console's cookies, generated by the first console to start and read by
 * every other (console_keys): replicas agree on it without a shared setting, and it never leaves
 * the database.
 */
export async function cookieKey(db: Database): Promise<string> {
  await db.query("INSERT INTO console_keys (name, value) VALUES ('cookies', $1) ON CONFLICT (name) DO NOTHING", [
    randomBytes(48).toString('base64url'),
  ]);
  const { rows } = await db.query<{ value: string }>("SELECT value FROM console_keys WHERE name = 'cookies'");
  return rows[0]!.value;
}
