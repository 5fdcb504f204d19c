// What both baseline receivers share with the gateway: the same start-up contract (environment
// variables, a `listening on http://…` line when ready), so the benchmark starts all three alike,
// and the one table and INSERT a hand-written receiver typically uses.

import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';

export const MONEY_IN_PATH = '/webhooks/core/money-in';

/** The body limit a typical receiver sets (body-parser's is 100 kB; the gateway's default 1 MiB). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

export const CREATE_EVENTS_TABLE =
  'CREATE TABLE IF NOT EXISTS events (id_msg text PRIMARY KEY, body jsonb NOT NULL, received_at timestamptz NOT NULL DEFAULT now())';

export const INSERT_EVENT = 'INSERT INTO events(id_msg, body) VALUES ($1,$2) ON CONFLICT DO NOTHING';

export interface ReceiverEnv {
  port: number;
  host: string;
  databaseUrl: string;
  /** The bearer token the platform sends; compared as a plain string, as such receivers do. */
  token: string;
}

export class ReceiverEnvError extends Error {
  override name = 'ReceiverEnvError';
}

export function readReceiverEnv(env: NodeJS.ProcessEnv = process.env): ReceiverEnv {
  const problems: string[] = [];
  const portText = env.GATEWAY_PORT ?? '4020';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535)
    problems.push(
      `GATEWAY_PORT "${portText}" is not a port: give a whole number from 0 to 65535 (0 picks a free one).`,
    );
  const databaseUrl = env.DATABASE_URL ?? '';
  if (!/^postgres(ql)?:\/\//.test(databaseUrl))
    problems.push('DATABASE_URL is missing or not a postgres:// URL: set it to the database this receiver writes to.');
  const token = env.GATEWAY_CORE_TOKENS_MONEY_IN ?? '';
  // The platform's tokens are random and at least 32 bytes; a short one is a set-up mistake.
  if (token.length < 32)
    problems.push(
      'GATEWAY_CORE_TOKENS_MONEY_IN is missing or shorter than 32 characters: set it to the token registered for MONEY_IN.',
    );
  if (problems.length > 0) throw new ReceiverEnvError(problems.join('\n'));
  return { port, host: env.GATEWAY_HOST ?? '127.0.0.1', databaseUrl, token };
}

/** For a receiver's start-up: the environment, or a message on stderr and exit 2. */
export function readReceiverEnvOrExit(): ReceiverEnv {
  try {
    return readReceiverEnv();
  } catch (error) {
    if (!(error instanceof ReceiverEnvError)) throw error;
    console.error(error.message);
    process.exit(2);
  }
}

/** Creates the events table, or says which database could not be reached (never its password) and exits 1. */
export async function createEventsTableOrExit(
  pool: { query(sql: string): Promise<unknown> },
  databaseUrl: string,
): Promise<void> {
  try {
    await pool.query(CREATE_EVENTS_TABLE);
  } catch (error) {
    const url = new URL(databaseUrl);
    console.error(
      `cannot create the events table in ${url.username}@${url.host}${url.pathname}: ${(error as Error).message}. Check that PostgreSQL runs there and DATABASE_URL is right.`,
    );
    process.exit(1);
  }
}

/** The ready line the benchmark (and the gateway's own contract) waits for. */
export function readyLine(host: string, port: number): string {
  return `listening on http://${host}:${port}`;
}

/** Listens, prints the ready line, and on SIGTERM closes the server and the pool before exiting. */
export function serveOrExit(server: http.Server, env: { host: string; port: number }, pool: pg.Pool): void {
  server.once('error', (error) => {
    console.error(
      `cannot listen on ${env.host}:${env.port}: ${error.message}. Choose another GATEWAY_PORT (0 picks a free one).`,
    );
    process.exit(1);
  });
  server.listen(env.port, env.host, () => {
    console.log(readyLine(env.host, (server.address() as AddressInfo).port));
  });
  process.once('SIGTERM', () => {
    server.close(() => void pool.end().then(() => process.exit(0)));
    server.closeAllConnections();
  });
}
