// The one store the gateway and the worker share, as a PostgreSQL URL both are given as DATABASE_URL:
// - DATABASE_URL set: that server (with --once and no --persist, a database of its own on it,
//   dropped at the end, so the run leaves nothing behind);
// - else PGlite in this process, served over TCP (pglite-server.ts): in memory with --once and no
//   --persist, else in PAYKIT_DATA_DIR/pglite (the store `pnpm paykit` records in).
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { acquireDataDirLock, openDatabase } from '@paykit/store';
import { PGLITE_CONNECT_TIMEOUT_MS, servePglite } from './pglite-server.ts';

export interface SharedStore {
  /** What it is, safe to print: never a user or a password. */
  readonly description: string;
  /** The URL the children are given (it may hold a password: never print it). */
  readonly url: string;
  /**
   * DATABASE_URL for another process (`pnpm paykit` in another terminal), when printing it shows
   * no secret: PGlite's, served here without a password. Undefined for a server given as
   * DATABASE_URL, whose URL may hold one (that terminal's environment has it already).
   */
  readonly printableUrl: string | undefined;
  /** What the children are given besides DATABASE_URL: how long a connection to PGlite may take to open. */
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

export interface StoreChoice {
  databaseUrl: string | undefined;
  /** Keep what the run stores (without --once, or with --persist). */
  keep: boolean;
  /** The PGlite folder when it is kept. */
  dataDir: string;
  root: string;
}

export async function openSharedStore(choice: StoreChoice): Promise<SharedStore> {
  if (choice.databaseUrl !== undefined)
    return choice.keep
      ? {
          description: 'PostgreSQL (DATABASE_URL)',
          url: choice.databaseUrl,
          printableUrl: undefined,
          env: {},
          close: async () => {},
        }
      : throwawayDatabase(choice.databaseUrl);
  let release = (): void => {};
  if (choice.keep) {
    mkdirSync(choice.dataDir, { recursive: true });
    release = acquireDataDirLock(choice.dataDir);
  }
  try {
    const db = await PGlite.create(choice.keep ? choice.dataDir : 'memory://');
    const server = await servePglite(db, 0);
    const url = `postgres://postgres@127.0.0.1:${server.port}/postgres`;
    return {
      description: choice.keep ? `PGlite in ${path.relative(choice.root, choice.dataDir)}` : 'PGlite in memory',
      url,
      printableUrl: url,
      env: { DATABASE_CONNECT_TIMEOUT_MS: String(PGLITE_CONNECT_TIMEOUT_MS) },
      async close() {
        await server.close();
        await db.close();
        release();
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}

/** A new database on the server of `databaseUrl`, dropped by close(). */
async function throwawayDatabase(databaseUrl: string): Promise<SharedStore> {
  const name = `paykit_dev_${randomBytes(6).toString('hex')}`;
  const admin = await openDatabase({ databaseUrl, poolSize: 1 });
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.close();
  }
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return {
    description: 'PostgreSQL (DATABASE_URL), a database dropped at the end',
    url: url.toString(),
    printableUrl: undefined,
    env: {},
    async close() {
      const dropper = await openDatabase({ databaseUrl, poolSize: 1 });
      try {
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.close();
      }
    },
  };
}
