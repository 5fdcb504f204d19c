// Versioned SQL migrations: migrations/NNNN_name.sql, applied in order, each recorded with a
// checksum of its text. A released file is never edited, so a checksum that no longer matches is an
// error (fix it by restoring the file and adding a new migration). All pending files run in one
// transaction under an advisory lock: concurrent migrators (N gateway replicas starting at once)
// wait for each other, and a failing file leaves the database as it was.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database, Queryable } from './database.ts';
import { messageOf } from './connection-errors.ts';
import { MigrationError } from './errors.ts';

/** The package's own migrations folder (beside src/ and dist/, so both find it). */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));

/** Any constant works; this one is "paykit" in ASCII, so it is recognisable in pg_locks. */
const MIGRATION_LOCK = '123563951221108';

const FILE_NAME = /^(\d{4})_([a-z0-9_]+)\.sql$/;

export interface Migration {
  /** "0001" */
  version: string;
  /** "0001_webhook_events": what migrate() reports. */
  name: string;
  sql: string;
  /** sha256 of the text, line endings normalised (a Windows checkout must not look like an edit). */
  checksum: string;
}

export interface MigrateOptions {
  /** Another folder of migrations (tests); default: the package's own. */
  directory?: string;
}

/** Reads and checks the folder: NNNN_lowercase_name.sql only, versions unique. */
export function loadMigrations(directory: string = MIGRATIONS_DIR): Migration[] {
  let files: string[];
  try {
    files = readdirSync(directory).filter((file) => file.endsWith('.sql'));
  } catch (error) {
    throw new MigrationError(`cannot read the migrations folder ${directory}: ${messageOf(error)}`);
  }
  const migrations = files.map((file) => {
    const match = FILE_NAME.exec(file);
    if (!match)
      throw new MigrationError(
        `migration file ${file} is misnamed: use NNNN_lowercase_name.sql (four digits, then letters, digits and _)`,
      );
    const sql = readFileSync(path.join(directory, file), 'utf8').replace(/\r\n/g, '\n');
    return {
      version: match[1]!,
      name: file.slice(0, -'.sql'.length),
      sql,
      checksum: createHash('sha256').update(sql).digest('hex'),
    };
  });
  migrations.sort((a, b) => a.version.localeCompare(b.version));
  for (let index = 1; index < migrations.length; index++) {
    if (migrations[index]!.version === migrations[index - 1]!.version) {
      throw new MigrationError(
        `migrations ${migrations[index - 1]!.name}.sql and ${migrations[index]!.name}.sql share version ${migrations[index]!.version}: renumber the newer one`,
      );
    }
  }
  if (migrations.length === 0)
    throw new MigrationError(
      `no migrations in ${directory}: the package is incomplete (its migrations folder ships with it)`,
    );
  return migrations;
}

interface AppliedRow {
  version: string;
  name: string;
  checksum: string;
}

/** Applies what is pending. Idempotent; safe to run from several processes at once. */
export async function migrate(
  db: Database,
  options: MigrateOptions = {},
): Promise<{ applied: string[]; current: string }> {
  const migrations = loadMigrations(options.directory);
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK]);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    text        PRIMARY KEY,
      name       text        NOT NULL,
      checksum   text        NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const recorded = (
      await tx.query<AppliedRow>('SELECT version, name, checksum FROM schema_migrations ORDER BY version')
    ).rows;
    checkRecorded(recorded, migrations);
    const done = new Set(recorded.map((row) => row.version));
    const applied: string[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await apply(tx, migration);
      applied.push(migration.name);
    }
    const newestRecorded = recorded.at(-1);
    const newestKnown = migrations.at(-1)!;
    // A database migrated by a newer build stays at its own (higher) version.
    const current =
      newestRecorded !== undefined && newestRecorded.version > newestKnown.version
        ? newestRecorded.name
        : newestKnown.name;
    return { applied, current };
  });
}

async function apply(tx: Queryable, migration: Migration): Promise<void> {
  try {
    await tx.query(migration.sql);
  } catch (error) {
    throw new MigrationError(
      `migration ${migration.name}.sql failed, and nothing from this run was applied: ${messageOf(error)}`,
      { cause: error },
    );
  }
  await tx.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
    migration.version,
    migration.name,
    migration.checksum,
  ]);
}

/** Every recorded migration must still be there, unchanged; only versions newer than all files may be unknown (a newer build ran). */
function checkRecorded(recorded: AppliedRow[], migrations: Migration[]): void {
  const byVersion = new Map(migrations.map((migration) => [migration.version, migration]));
  const newestKnown = migrations.at(-1)!.version;
  for (const row of recorded) {
    const migration = byVersion.get(row.version);
    if (migration === undefined) {
      if (row.version > newestKnown) continue;
      throw new MigrationError(
        `migration ${row.name}.sql was applied to this database but its file is gone: restore it (released migrations are never removed)`,
      );
    }
    if (migration.name !== row.name) {
      throw new MigrationError(
        `migration ${row.version} was applied as ${row.name}.sql but the file is now ${migration.name}.sql: restore the original name`,
      );
    }
    if (migration.checksum !== row.checksum) {
      throw new MigrationError(
        `migration ${migration.name}.sql was changed after it was applied (its checksum no longer matches the one recorded): restore the released file and put the change in a new migration`,
      );
    }
  }
}
