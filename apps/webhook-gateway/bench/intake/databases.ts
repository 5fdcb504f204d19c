// A fresh PostgreSQL database per contender, so each starts empty and the audit counts only its
// own rows: created through the admin connection (DATABASE_URL), dropped after the run.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface BenchDatabase {
  name: string;
  /** The admin URL with this database's name: what the contender connects to. */
  url: string;
  drop(): Promise<void>;
}

/** "user@host:port/database", never the password: safe to print. */
export function describeDatabaseUrl(url: string): string {
  const parsed = new URL(url);
  const user = parsed.username ? `${decodeURIComponent(parsed.username)}@` : '';
  return `${user}${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
}

export function databaseUrlFor(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function withAdmin<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`cannot connect to PostgreSQL at ${describeDatabaseUrl(adminUrl)} (${(error as Error).message}): start it, or point DATABASE_URL at a server where this user may CREATE DATABASE`, { cause: error });
  }
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function createBenchDatabase(adminUrl: string, contender: string): Promise<BenchDatabase> {
  // Only [a-z0-9_] goes into the name, so it needs no quoting beyond the identifier quotes.
  const name = `paykit_bench_${contender.replace(/[^a-z0-9_]/g, '_')}_${randomBytes(4).toString('hex')}`;
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  let dropped = false;
  return {
    name,
    url: databaseUrlFor(adminUrl, name),
    drop: async () => {
      if (dropped) return;
      dropped = true;
      // FORCE: a contender that did not shut down cleanly may still hold connections.
      await withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}
