// The worker as one object: the database (migrated), the apply loop and the console.
import path from 'node:path';
import { migrate, openDatabase, type Database } from '@paykit/store';
import type { WorkerConfig } from './config.ts';
import { startConsole, type ConsoleServer } from './console/server.ts';
import { startApplyLoop, type ApplyLoop } from './loop.ts';

export interface Worker {
  url: string;
  database: Database;
  close(): Promise<void>;
}

export async function startWorker(config: WorkerConfig, options: { database?: Database; onError?: (error: unknown) => void } = {}): Promise<Worker> {
  const db = options.database ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: path.join(config.dataDir, 'pglite') }));
  let loop: ApplyLoop | undefined;
  let server: ConsoleServer | undefined;
  try {
    await migrate(db);
    if (config.apply) loop = startApplyLoop(db, { batchSize: config.batchSize, pollMs: config.pollMs, leaseSeconds: config.leaseSeconds, onError: options.onError });
    server = await startConsole({
      db,
      port: config.port,
      host: config.host,
      staleAfterSeconds: config.staleAfterSeconds,
      status: () => ({ applied: loop?.totals.applied ?? 0, lastError: loop?.lastError ?? null, caughtUp: loop?.caughtUp ?? false }),
    });
  } catch (error) {
    await loop?.stop();
    if (!options.database) await db.close();
    throw error;
  }
  const console = server;
  return {
    url: console.url,
    database: db,
    async close() {
      await console.close();
      await loop?.stop();
      if (!options.database) await db.close();
    },
  };
}
