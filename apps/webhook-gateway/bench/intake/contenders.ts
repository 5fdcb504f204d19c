// The three receivers under load, each started the same way (the gateway's start-up contract) and
// each able to say which deliveries its database holds, for the audit.
import path from 'node:path';
import pg from 'pg';
import type { BenchAccount } from './money-in.ts';

export const CONTENDER_NAMES = ['gateway', 'minimal', 'express'] as const;
export type ContenderName = (typeof CONTENDER_NAMES)[number];

export interface Contender {
  name: ContenderName;
  label: string;
  /** The .ts file started with `node --conditions=@paykit/source`. */
  entry: string;
  cwd: string;
  /** Readies the fresh database before the process starts. */
  prepare(databaseUrl: string, account: BenchAccount): Promise<void>;
  /** The id_msg of every MONEY_IN stored in that database. */
  storedIdMsgs(databaseUrl: string): Promise<Set<string>>;
}

const APP_DIR = path.resolve(import.meta.dirname, '../..');
const BASELINES = path.join(APP_DIR, 'bench/baselines');

/** The gateway: its own store, migrated at its start-up; MONEY_IN to an unknown CLABE is refused, so the account is seeded first. */
const gateway: Contender = {
  name: 'gateway',
  label: 'webhook gateway',
  entry: path.join(APP_DIR, 'src/main.ts'),
  cwd: APP_DIR,
  async prepare(databaseUrl, account) {
    // Imported here, not at the top: a baselines-only run never loads the store.
    const { createAccountStore, migrate, openDatabase } = await import('@paykit/store');
    const { ledgerMigrations } = await import('@paykit/ledger/migrations');
    const db = await openDatabase({ databaseUrl });
    try {
      await migrate(db, [ledgerMigrations]);
      await createAccountStore(db).upsert({
        clabe: account.clabe,
        ownerId: account.ownerId,
        status: 'ACTIVE',
        creditLimit: null,
      });
    } finally {
      await db.close();
    }
  },
  // Read straight from the released schema (@paykit/store's migrations/0001_webhook_events.sql), not through the
  // store's own read path: the audit must not share code with what it checks.
  storedIdMsgs: (databaseUrl) =>
    idMsgsIn(
      databaseUrl,
      "SELECT id_msg FROM webhook_events WHERE source = 'core' AND event_type = 'MONEY_IN' AND id_msg IS NOT NULL",
    ),
};

async function idMsgsIn(databaseUrl: string, sql: string): Promise<Set<string>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id_msg: string }>(sql);
    return new Set(rows.map((row) => row.id_msg));
  } finally {
    await client.end();
  }
}

/** Both baselines create their table themselves and keep one row per id_msg. */
const baselineStoredIdMsgs = (databaseUrl: string) => idMsgsIn(databaseUrl, 'SELECT id_msg FROM events');

const minimal: Contender = {
  name: 'minimal',
  label: 'minimal node:http + one INSERT',
  entry: path.join(BASELINES, 'minimal.ts'),
  cwd: APP_DIR,
  prepare: async () => {},
  storedIdMsgs: baselineStoredIdMsgs,
};

const express: Contender = {
  name: 'express',
  label: 'Express + body-parser + one INSERT',
  entry: path.join(BASELINES, 'express.ts'),
  cwd: APP_DIR,
  prepare: async () => {},
  storedIdMsgs: baselineStoredIdMsgs,
};

export const CONTENDERS: Record<ContenderName, Contender> = { gateway, minimal, express };
