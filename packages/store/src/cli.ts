#!/usr/bin/env -S node --conditions=@paykit/source
// paykit-store: the store's command line. Today one command, migrate, for deploys that apply
// migrations before starting the apps (the apps also apply them at start-up).
//   paykit-store migrate [package…]    DATABASE_URL, or PGlite at PAYKIT_DATA_DIR (default .data/pglite)
// Each package named (@paykit/ledger) is found from the current folder, as an import there would
// find it, and its migration set (migrations/, sql/functions/) applied with the store's.
// Exit 0: done; 1: it failed (the message says why and what to do); 2: wrong usage.
import { createRequire } from 'node:module';
import path from 'node:path';
import { openDatabase } from './database.ts';
import type { Database } from './database.ts';
import { migrate, migrationSet, type MigrationSet } from './migrate.ts';

const USAGE = `Usage: paykit-store migrate [package…]

Applies the pending migrations of @paykit/store and of each package named (such as @paykit/ledger,
found from the current folder), then each of their SQL function files, and prints each migration
applied and the current version. Name every package whose migrations the database holds: the
store refuses to migrate a database part of whose schema it was not given.

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
  if (args.length === 0 || args[0] !== 'migrate' || args.slice(1).some((arg) => arg.startsWith('-'))) {
    const problem = args.length === 0 ? 'no command given' : `unknown arguments: ${args.join(' ')}`;
    process.stderr.write(`paykit-store: ${problem}\n\n${USAGE}\n`);
    return 2;
  }
  let sets: MigrationSet[];
  try {
    sets = args.slice(1).map(setOf);
  } catch (error) {
    process.stderr.write(`paykit-store: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  let db: Database | undefined;
  try {
    const databaseUrl = process.env.DATABASE_URL;
    db = await openDatabase(
      databaseUrl === undefined ? { dataDir: process.env.PAYKIT_DATA_DIR || '.data/pglite' } : { databaseUrl },
    );
    process.stdout.write(`migrating ${db.description}\n`);
    const { applied, current, functions, newerBuild } = await migrate(db, sets);
    for (const name of applied) process.stdout.write(`applied ${name}\n`);
    if (applied.length === 0) process.stdout.write('nothing to apply\n');
    process.stdout.write(
      newerBuild
        ? 'functions left as they are: a newer build migrated this database\n'
        : functions.length === 0
          ? 'functions: each as its file says already\n'
          : `functions applied: ${functions.length}\n`,
    );
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

/** The migration set of the package `name`, found from the current folder. */
function setOf(name: string): MigrationSet {
  let manifest: string;
  try {
    manifest = createRequire(path.join(process.cwd(), 'package.json')).resolve(`${name}/package.json`);
  } catch {
    throw new Error(
      `cannot find the package ${name} from ${process.cwd()}: run the command where it is installed (a folder whose node_modules has it)`,
    );
  }
  return migrationSet(path.dirname(manifest));
}

process.exitCode = await main(process.argv.slice(2));
