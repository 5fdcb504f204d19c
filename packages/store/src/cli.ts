#!/usr/bin/env -S node --conditions=@paykit/source
// paykit-store: the store's command line. Today one command, migrate, for deploys that apply
// migrations before starting the apps (the apps also apply them at start-up).
//   paykit-store migrate    DATABASE_URL, or PGlite at PAYKIT_DATA_DIR (default .data/pglite)
// Exit 0: done; 1: it failed (the message says why and what to do); 2: wrong usage.
import { openDatabase } from './database.ts';
import type { Database } from './database.ts';
import { migrate } from './migrate.ts';

const USAGE = `Usage: paykit-store migrate

Applies the pending migrations of @paykit/store and prints each one applied and the current version.

Environment:
  DATABASE_URL      postgres://user:password@host:5432/database; unset: the embedded PGlite database
  PAYKIT_DATA_DIR   PGlite's data folder when DATABASE_URL is unset (default .data/pglite)

Options:
  -h, --help        show this help`;

async function main(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (args.length !== 1 || args[0] !== 'migrate') {
    const problem = args.length === 0 ? 'no command given' : `unknown arguments: ${args.join(' ')}`;
    process.stderr.write(`paykit-store: ${problem}\n\n${USAGE}\n`);
    return 2;
  }
  let db: Database | undefined;
  try {
    const databaseUrl = process.env.DATABASE_URL;
    db = await openDatabase(
      databaseUrl === undefined ? { dataDir: process.env.PAYKIT_DATA_DIR || '.data/pglite' } : { databaseUrl },
    );
    process.stdout.write(`migrating ${db.description}\n`);
    const { applied, current } = await migrate(db);
    for (const name of applied) process.stdout.write(`applied ${name}\n`);
    if (applied.length === 0) process.stdout.write('nothing to apply\n');
    process.stdout.write(`current version: ${current}\n`);
    return 0;
  } catch (error) {
    // The message only: the store's errors name the database by its description, never a password.
    process.stderr.write(`paykit-store: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await db?.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
