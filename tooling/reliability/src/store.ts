// A scenario's own store: a fresh database on the PostgreSQL server of DATABASE_URL (optionally
// behind a TCP proxy the scenario can cut or slow), or else a fresh PGlite folder. The apps get
// it through their documented environment (`env`); the scenario reads it with `read()` — on
// PGlite only while no app has the folder open (one process per folder).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase, type Database } from '@paykit/store';
import { createScratchDatabase, type ScratchDatabase } from '@paykit/store/testing';
import { startTcpProxy, type TcpProxy } from '@paykit/testing/tcp-proxy';

export interface ScenarioStore {
  kind: 'postgres' | 'pglite';
  /** DATABASE_URL (through the proxy, when asked for) or PAYKIT_DATA_DIR, for the apps. */
  env: Record<string, string>;
  /** Between the apps and PostgreSQL, when asked for. */
  proxy: TcpProxy | undefined;
  /** Opens the store directly (never through the proxy), runs `read`, closes it. */
  read<T>(read: (db: Database) => Promise<T>): Promise<T>;
  /** Drops the database or removes the folder. */
  remove(): Promise<void>;
}

export async function createScenarioStore(name: string, options: { proxy?: boolean } = {}): Promise<ScenarioStore> {
  const serverUrl = process.env.DATABASE_URL;
  if (options.proxy && !serverUrl)
    throw new Error(`${name}: a proxy between the apps and the store needs PostgreSQL (set DATABASE_URL)`);
  let scratch: ScratchDatabase | undefined;
  let dataDir: string | undefined;
  let proxy: TcpProxy | undefined;
  let env: Record<string, string>;
  if (serverUrl) {
    scratch = await createScratchDatabase(serverUrl, `rel_${name}`);
    const appUrl = new URL(scratch.url);
    if (options.proxy) {
      proxy = await startTcpProxy({ host: appUrl.hostname, port: Number(appUrl.port || 5432) });
      appUrl.host = `127.0.0.1:${proxy.port}`;
    }
    env = { DATABASE_URL: appUrl.toString() };
  } else {
    dataDir = await mkdtemp(path.join(tmpdir(), `paykit-rel-${name}-`));
    env = { PAYKIT_DATA_DIR: dataDir };
  }
  return {
    kind: scratch ? 'postgres' : 'pglite',
    env,
    proxy,
    async read(read) {
      const db = await openDatabase(
        scratch ? { databaseUrl: scratch.url, poolSize: 2 } : { dataDir: path.join(dataDir!, 'pglite') },
      );
      try {
        return await read(db);
      } finally {
        await db.close();
      }
    },
    async remove() {
      await proxy?.close();
      await scratch?.drop();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
