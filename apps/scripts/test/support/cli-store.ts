// A CLI test's own store: a PostgreSQL database of its own where DATABASE_URL is set (as in CI:
// each run of the CLI opens it in a fraction of PGlite's start-up), else a PGlite folder in a
// temporary directory; and the environment the CLI runs with (no profile, HOME in that directory).
// Registers its own beforeAll and afterAll: call it inside the test's describe.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';
import { runNode, type NodeRun } from '@paykit/testing/run-node';
import { afterAll, beforeAll } from 'vitest';

const MAIN = path.resolve(import.meta.dirname, '../../src/main.ts');

export interface CliStore {
  /** The temporary directory (HOME; PGlite's folder is `store/` inside it). */
  dir(): string;
  /** The PostgreSQL database, when there is one. */
  opened(): OpenedTestDatabase | undefined;
  /** Runs `paykit args` on this store, `input` on its standard input. */
  paykit(args: string[], input?: string): Promise<NodeRun>;
}

export function cliStore(prefix: string): CliStore {
  let dir: string;
  let env: Record<string, string>;
  let opened: OpenedTestDatabase | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), prefix));
    opened = await testDatabases([ledgerMigrations])
      .find((kind) => kind.name === 'postgres')
      ?.open();
    env = {
      ...(process.env as Record<string, string>),
      DATABASE_URL: opened?.url ?? '',
      PAYKIT_DATA_DIR: path.join(dir, 'store'),
      PAYKIT_CONFIG: '',
      HOME: dir,
    };
  }, 60_000);
  afterAll(async () => {
    await opened?.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    dir: () => dir,
    opened: () => opened,
    paykit: (args, input) =>
      runNode(MAIN, args, { name: 'paykit', env, timeoutMs: 90_000, ...(input === undefined ? {} : { input }) }),
  };
}
