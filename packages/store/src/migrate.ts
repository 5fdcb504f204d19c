// Versioned SQL migrations in sets, one set per package that owns tables: the package's
// migrations/NNNN_name.sql, and its sql/functions/<function>.sql, each the current definition of
// one SQL function. migrate() merges the migrations of every set it is given (the store's own set
// always among them) in one version order, applies the pending ones, each recorded with a
// checksum of its text and the package that owns it, then applies the function files: every one
// after a run that applied a migration, else each one whose text changed since it was applied
// (schema_functions). A released migration is never edited, so a checksum that no longer matches is
// an error (fix it by restoring the file and adding a new migration); a function file is edited in
// place, with a new migration beside it (see applyFunctions: an older build, started later, then
// knows the definition is newer than its own and leaves it). Everything
// runs in one transaction under an advisory lock: concurrent migrators (N gateway replicas
// starting at once) wait for each other, and a failing file leaves the database as it was.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database, Queryable } from './database.ts';
import { messageOf } from './connection-errors.ts';
import { MigrationError } from './errors.ts';

/** The store's own migrations folder (beside src/ and dist/, so both find it). */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));

/** Any constant works; this one is "paykit" in ASCII, so it is recognisable in pg_locks. */
const MIGRATION_LOCK = '123563951221108';

const FILE_NAME = /^(\d{4})_([a-z0-9_]+)\.sql$/;
const FUNCTION_FILE_NAME = /^([a-z_][a-z0-9_]*)\.sql$/;

/** The migrations and SQL functions one package owns. */
export interface MigrationSet {
  /** The owning package's name ("@paykit/ledger"), recorded with each of its migrations. */
  owner: string;
  /** Its folder of NNNN_name.sql migrations. */
  migrations: string;
  /** Its folder of <function>.sql files, each the current definition of one function; none: no functions. */
  functions?: string;
}

/**
 * The set of the package whose root folder is `root`: its package.json's name, `migrations/` and
 * `sql/functions/`. A package exports its own (`migrationSet(fileURLToPath(new URL('..', import.meta.url)))`
 * from a file in src/ or dist/).
 */
export function migrationSet(root: string): MigrationSet {
  let name: unknown;
  try {
    name = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { name?: unknown }).name;
  } catch (error) {
    throw new MigrationError(`cannot read the package.json of ${root} to name its migration set: ${messageOf(error)}`);
  }
  if (typeof name !== 'string' || name === '')
    throw new MigrationError(`${path.join(root, 'package.json')} has no name to record its migrations under`);
  return { owner: name, migrations: path.join(root, 'migrations'), functions: path.join(root, 'sql', 'functions') };
}

/** The store's own set (webhook_events, accounts, the batch append's table); every migrate() applies it. */
export const storeMigrations: MigrationSet = migrationSet(fileURLToPath(new URL('..', import.meta.url)));

export interface Migration {
  /** "0001" */
  version: string;
  /** "0001_webhook_events": what migrate() reports. */
  name: string;
  /** The package whose set holds it ("@paykit/store"). */
  owner: string;
  /** Its file. */
  file: string;
  sql: string;
  /** sha256 of the text, line endings normalised (a Windows checkout must not look like an edit). */
  checksum: string;
}

/** One function file: the current definition of one SQL function. */
export interface SqlFunction {
  /** The function's name, which is the file's ("ledger_event_problem"). */
  name: string;
  owner: string;
  file: string;
  sql: string;
  /** sha256 of the text, line endings normalised. */
  checksum: string;
}

export interface MigrateOptions {
  /**
   * Apply only the migrations with a lower version, and no function file (the function files
   * describe the newest schema): for tests of what one migration does to the data before it.
   */
  before?: string;
}

export interface MigrateResult {
  /** The migrations applied by this run, in order. */
  applied: string[];
  /** The newest migration the database has. */
  current: string;
  /** The function files applied again, in order ("@paykit/ledger:ledger_event_problem"). */
  functions: string[];
  /**
   * The database holds migrations newer than this build's files (a newer build migrated it): its
   * functions are left as that build defined them, and `functions` is empty.
   */
  newerBuild: boolean;
}

/** The sets migrate() runs: the store's first, then the given ones in order (the store's may be replaced by a set of the same owner). */
function withStoreSet(sets: readonly MigrationSet[]): MigrationSet[] {
  const all = sets.some((set) => set.owner === storeMigrations.owner) ? [...sets] : [storeMigrations, ...sets];
  const byOwner = new Map<string, MigrationSet>();
  for (const set of all) {
    const seen = byOwner.get(set.owner);
    if (seen && (seen.migrations !== set.migrations || seen.functions !== set.functions))
      throw new MigrationError(
        `two migration sets are named ${set.owner} (${seen.migrations} and ${set.migrations}): pass each package's set once`,
      );
    byOwner.set(set.owner, set);
  }
  const ordered = [...byOwner.values()];
  return [
    ...ordered.filter((set) => set.owner === storeMigrations.owner),
    ...ordered.filter((set) => set.owner !== storeMigrations.owner),
  ];
}

function readFolder(directory: string, what: string): string[] {
  try {
    return readdirSync(directory)
      .filter((file) => file.endsWith('.sql'))
      .sort();
  } catch (error) {
    throw new MigrationError(`cannot read the ${what} folder ${directory}: ${messageOf(error)}`);
  }
}

const readSql = (file: string): string => readFileSync(file, 'utf8').replace(/\r\n/g, '\n');

function loadSet(set: MigrationSet): Migration[] {
  const migrations = readFolder(set.migrations, 'migrations').map((file) => {
    const match = FILE_NAME.exec(file);
    if (!match)
      throw new MigrationError(
        `migration file ${file} of ${set.owner} is misnamed: use NNNN_lowercase_name.sql (four digits, then letters, digits and _)`,
      );
    const sql = readSql(path.join(set.migrations, file));
    return {
      version: match[1]!,
      name: file.slice(0, -'.sql'.length),
      owner: set.owner,
      file: path.join(set.migrations, file),
      sql,
      checksum: createHash('sha256').update(sql).digest('hex'),
    };
  });
  if (migrations.length === 0)
    throw new MigrationError(
      `no migrations in ${set.migrations}: ${set.owner} is incomplete (its migrations folder ships with it)`,
    );
  return migrations;
}

/**
 * Reads and checks the migrations of the sets (the store's always among them): NNNN_lowercase_name.sql
 * only, versions unique across all sets. In version order.
 */
export function loadMigrations(sets: readonly MigrationSet[] = []): Migration[] {
  const migrations = withStoreSet(sets).flatMap(loadSet);
  migrations.sort((a, b) => a.version.localeCompare(b.version));
  for (let index = 1; index < migrations.length; index++) {
    const [earlier, later] = [migrations[index - 1]!, migrations[index]!];
    if (later.version === earlier.version) {
      throw new MigrationError(
        `migrations ${earlier.file} (${earlier.owner}) and ${later.file} (${later.owner}) share version ${later.version}: versions are unique across every package's migrations, renumber the newer one`,
      );
    }
  }
  return migrations;
}

/** CREATE [OR REPLACE] FUNCTION name( in a text, comments left out. */
const CREATE_FUNCTION = /\bCREATE\s+(OR\s+REPLACE\s+)?FUNCTION\s+("?[A-Za-z_][A-Za-z0-9_.]*"?)\s*\(/gi;

/**
 * Reads and checks the function files of the sets: <function>.sql, each with CREATE OR REPLACE
 * FUNCTION of that one function (it runs on every migrate), one file per function across all
 * sets. The store's first, then each set's in the order given, each in file name order.
 */
export function loadFunctions(sets: readonly MigrationSet[] = []): SqlFunction[] {
  const functions: SqlFunction[] = [];
  const byName = new Map<string, SqlFunction>();
  for (const set of withStoreSet(sets)) {
    if (set.functions === undefined) continue;
    if (!existsSync(set.functions))
      throw new MigrationError(
        `no function folder ${set.functions}: ${set.owner} is incomplete (its sql/functions folder ships with it)`,
      );
    for (const file of readFolder(set.functions, 'function')) {
      const match = FUNCTION_FILE_NAME.exec(file);
      const where = path.join(set.functions, file);
      if (!match)
        throw new MigrationError(
          `function file ${where} is misnamed: name it after the function it defines, in lowercase (ledger_event_problem.sql)`,
        );
      const name = match[1]!;
      const sql = readSql(where);
      const created = [...sql.replace(/--[^\n]*/g, '').matchAll(CREATE_FUNCTION)];
      if (created.length === 0)
        throw new MigrationError(
          `function file ${where} defines no function: it holds CREATE OR REPLACE FUNCTION ${name}(…)`,
        );
      for (const [, orReplace, defined] of created) {
        if (defined !== name)
          throw new MigrationError(
            `function file ${where} defines ${defined}: a file defines only the function it is named after (move ${defined} to ${defined}.sql)`,
          );
        if (orReplace === undefined)
          throw new MigrationError(
            `function file ${where} uses CREATE FUNCTION: it runs on every migrate, so use CREATE OR REPLACE FUNCTION`,
          );
      }
      const seen = byName.get(name);
      if (seen)
        throw new MigrationError(
          `function ${name} has two files, ${seen.file} (${seen.owner}) and ${where} (${set.owner}): one function, one file`,
        );
      const fn = { name, owner: set.owner, file: where, sql, checksum: createHash('sha256').update(sql).digest('hex') };
      byName.set(name, fn);
      functions.push(fn);
    }
  }
  return functions;
}

interface AppliedRow {
  version: string;
  name: string;
  checksum: string;
  owner: string | null;
}

/**
 * Applies what is pending of the store's migrations and of each set given, in version order,
 * then every function file of those sets. Idempotent; safe to run from several processes at once.
 * Every package whose migrations this database holds must be among the sets (the store's always
 * is): a process that leaves one out is refused, never run on a schema it did not check.
 */
export async function migrate(
  db: Database,
  sets: readonly MigrationSet[] = [],
  options: MigrateOptions = {},
): Promise<MigrateResult> {
  const all = withStoreSet(sets);
  const known = loadMigrations(all);
  const migrations = options.before === undefined ? known : known.filter((m) => m.version < options.before!);
  const functions = options.before === undefined ? loadFunctions(all) : [];
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK]);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    text        PRIMARY KEY,
      name       text        NOT NULL,
      checksum   text        NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    // The package each migration belongs to. Rows recorded before sets existed have none yet: each
    // takes the owner of the file of its version and name, once a set that has it is given. (Added
    // only when missing: ALTER TABLE locks the table and needs its owner, even with IF NOT EXISTS.)
    const hasOwner = await tx.query(
      `SELECT 1 FROM pg_attribute WHERE attrelid = 'schema_migrations'::regclass AND attname = 'owner' AND NOT attisdropped`,
    );
    if (hasOwner.rows.length === 0) await tx.query('ALTER TABLE schema_migrations ADD COLUMN owner text');
    let recorded = await readRecorded(tx);
    const byVersion = new Map(known.map((migration) => [migration.version, migration]));
    const unowned = recorded.filter((row) => row.owner === null && byVersion.get(row.version)?.name === row.name);
    if (unowned.length > 0) {
      for (const row of unowned)
        await tx.query('UPDATE schema_migrations SET owner = $1 WHERE version = $2', [
          byVersion.get(row.version)!.owner,
          row.version,
        ]);
      recorded = await readRecorded(tx);
    }
    const newerBuild = checkRecorded(recorded, known, all);
    const done = new Set(recorded.map((row) => row.version));
    refuseBehindPartitions(done, migrations);
    const applied: string[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await apply(tx, migration);
      applied.push(migration.name);
    }
    const build = known.at(-1)?.version ?? '';
    const reapplied = newerBuild ? [] : await applyFunctions(tx, functions, build, applied.length > 0);
    // The newest migration the database now has (a newer build's, when it ran).
    const current = [...recorded, ...migrations.filter((m) => applied.includes(m.name))]
      .map(({ version, name }) => ({ version, name }))
      .reduce((newest, row) => (row.version > newest.version ? row : newest), { version: '', name: '' }).name;
    return { applied, current, functions: reapplied, newerBuild };
  });
}

/** The store's migration that partitioned webhook_events: what was written for the table before it cannot run after it. */
const PARTITIONED = '0023';

/**
 * A set added to a database whose event store is already partitioned (migration 0023, applied when
 * the database held the store's set alone) would run its older migrations against a table they were
 * not written for: refused, with what to do, before anything is applied.
 */
function refuseBehindPartitions(done: ReadonlySet<string>, migrations: readonly Migration[]): void {
  if (!done.has(PARTITIONED)) return;
  const behind = migrations.filter((m) => !done.has(m.version) && m.version < PARTITIONED);
  if (behind.length === 0) return;
  throw new MigrationError(
    `${behind[0]!.owner}'s migration ${behind[0]!.name} (and ${behind.length - 1} more) predates the store's ${PARTITIONED}_partitioned_events, ` +
      'which this database already has: it was written for the event store before its partitions and cannot run after them. ' +
      "Migrate a new database with every set it will hold from the start (the paykit apps always pass the ledger's set).",
  );
}

async function readRecorded(tx: Queryable): Promise<AppliedRow[]> {
  return (await tx.query<AppliedRow>('SELECT version, name, checksum, owner FROM schema_migrations ORDER BY version'))
    .rows;
}

async function apply(tx: Queryable, migration: Migration): Promise<void> {
  try {
    await tx.query(migration.sql);
  } catch (error) {
    throw new MigrationError(
      `migration ${migration.name}.sql of ${migration.owner} failed, and nothing from this run was applied: ${messageOf(error)}`,
      { cause: error },
    );
  }
  await tx.query('INSERT INTO schema_migrations (version, name, checksum, owner) VALUES ($1, $2, $3, $4)', [
    migration.version,
    migration.name,
    migration.checksum,
    migration.owner,
  ]);
}

/**
 * Every recorded migration must still be there, unchanged, in the set of the package it was
 * recorded under; only versions newer than all of its own package's files may be unknown (a newer
 * build ran: returns true). A migration of a package whose set was not given is an error.
 */
function checkRecorded(recorded: AppliedRow[], migrations: Migration[], sets: MigrationSet[]): boolean {
  const byVersion = new Map(migrations.map((migration) => [migration.version, migration]));
  const given = new Set(sets.map((set) => set.owner));
  const newestOf = new Map<string, string>();
  for (const migration of migrations) newestOf.set(migration.owner, migration.version);
  let newerBuild = false;
  const missingSets = new Map<string, string[]>();
  for (const row of recorded) {
    const migration = byVersion.get(row.version);
    if (row.owner === null || !given.has(row.owner)) {
      if (migration === undefined || migration.name !== row.name) {
        const owner = row.owner ?? 'a package not recorded';
        missingSets.set(owner, [...(missingSets.get(owner) ?? []), `${row.name}.sql`]);
        continue;
      }
      // A recorded owner that differs from the file's: the file moved to another package.
      throw new MigrationError(
        `migration ${row.name}.sql was applied as ${row.owner}'s, but it is now in ${migration.owner}'s set: a released migration stays in the package that released it`,
      );
    }
    if (migration === undefined || migration.owner !== row.owner) {
      if (migration === undefined && row.version > newestOf.get(row.owner)!) {
        newerBuild = true;
        continue;
      }
      if (migration === undefined)
        throw new MigrationError(
          `migration ${row.name}.sql of ${row.owner} was applied to this database but its file is gone: restore it (released migrations are never removed)`,
        );
      throw new MigrationError(
        `migration ${row.version} was applied as ${row.owner}'s ${row.name}.sql but version ${row.version} is now ${migration.owner}'s ${migration.name}.sql: restore the original file and renumber the new one`,
      );
    }
    if (migration.name !== row.name) {
      throw new MigrationError(
        `migration ${row.version} was applied as ${row.name}.sql but the file is now ${migration.name}.sql: restore the original name`,
      );
    }
    if (migration.checksum !== row.checksum) {
      throw new MigrationError(
        `migration ${migration.name}.sql of ${migration.owner} was changed after it was applied (its checksum no longer matches the one recorded): restore the released file and put the change in a new migration`,
      );
    }
  }
  if (missingSets.size > 0) {
    const list = [...missingSets].map(([owner, files]) => `${owner} (${files.join(', ')})`).join('; ');
    throw new MigrationError(
      `this database holds migrations that no set given to migrate() has: ${list}. Pass the migration set of every package that owns tables in this database (from the command line: paykit-store migrate <package>…); a released migration is never removed`,
    );
  }
  return newerBuild;
}

/**
 * Applies the function files whose definition the database may not hold: all of them when this run
 * applied a migration (one may have replaced a function), else those whose text differs from what
 * was last applied (schema_functions: each file's checksum, and `build`, the newest migration the
 * build that applied it knew). A start with nothing changed runs no CREATE OR REPLACE, so it needs
 * no ownership of the functions. Change a function file together with a new migration (one that
 * only says which function changed will do): a replica of the previous release that restarts
 * during a rolling deploy, or after a rollback, then finds a migration newer than it knows and
 * leaves every function file alone (newerBuild), instead of writing its older rules over the new
 * ones; two builds at the same migration level would each write their own text.
 * SQL-language bodies are parsed when created, PL/pgSQL ones
 * when first called; with check_function_bodies off (this transaction only) both wait for their
 * first call, so files apply in any order, a function before one it calls that a later file adds.
 * A function an index, a constraint or a generated column is built on must not change here: they
 * would keep results of the old definition. Such a change is a migration (replace it and rebuild).
 */
async function applyFunctions(
  tx: Queryable,
  all: SqlFunction[],
  build: string,
  afterMigrations: boolean,
): Promise<string[]> {
  if (all.length === 0) return [];
  await tx.query(`CREATE TABLE IF NOT EXISTS schema_functions (
    owner      text        NOT NULL,
    name       text        NOT NULL,
    checksum   text        NOT NULL,
    build      text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (owner, name)
  )`);
  const recorded = new Map(
    (
      await tx.query<{ owner: string; name: string; checksum: string; build: string }>(
        'SELECT owner, name, checksum, build FROM schema_functions',
      )
    ).rows.map((row) => [`${row.owner}:${row.name}`, row]),
  );
  const functions = all.filter((fn) => {
    const last = recorded.get(`${fn.owner}:${fn.name}`);
    return last === undefined || afterMigrations || last.checksum !== fn.checksum;
  });
  if (functions.length === 0) return [];
  const names = functions.map((fn) => fn.name);
  const before = await indexedDefinitions(tx, names);
  await tx.query('SET LOCAL check_function_bodies = off');
  const applied: string[] = [];
  for (const fn of functions) {
    try {
      await tx.query(fn.sql);
    } catch (error) {
      throw new MigrationError(
        `function file ${fn.file} of ${fn.owner} failed, and nothing from this run was applied: ${messageOf(error)}`,
        { cause: error },
      );
    }
    await tx.query(
      `INSERT INTO schema_functions (owner, name, checksum, build) VALUES ($1, $2, $3, $4)
       ON CONFLICT (owner, name) DO UPDATE SET checksum = EXCLUDED.checksum, build = EXCLUDED.build, applied_at = now()`,
      [fn.owner, fn.name, fn.checksum, build],
    );
    applied.push(`${fn.owner}:${fn.name}`);
  }
  await tx.query('SET LOCAL check_function_bodies = on');
  const after = new Map((await indexedDefinitions(tx, names)).map((row) => [row.signature, row.definition]));
  for (const row of before) {
    if (after.get(row.signature) === row.definition) continue;
    const fn = functions.find((candidate) => candidate.name === row.name)!;
    throw new MigrationError(
      `function file ${fn.file} changes ${row.signature}, which ${row.users} ${row.users.includes(',') ? 'are' : 'is'} built on: they would keep results of the old definition. Put the change in a new migration that replaces the function, with the file's text, and rebuilds them (REINDEX an index, rewrite the rows of a generated column, check a constraint again), so the file then matches`,
    );
  }
  return applied;
}

interface IndexedDefinition {
  name: string;
  signature: string;
  definition: string;
  users: string;
}

/**
 * The definitions of those of the named functions that an index, a constraint or a generated column
 * is built on. Only direct dependencies: PostgreSQL records none on a function that such a function
 * calls, so keep what an index is built on free of calls to other functions of ours (ledger_day is).
 */
async function indexedDefinitions(tx: Queryable, names: string[]): Promise<IndexedDefinition[]> {
  return (
    await tx.query<IndexedDefinition>(
      `SELECT p.proname AS name, p.oid::regprocedure::text AS signature, pg_get_functiondef(p.oid) AS definition,
              string_agg(DISTINCT coalesce('index ' || i.relname, 'constraint ' || c.conname,
                                           'column ' || g.attrelid::regclass || '.' || g.attname), ', ') AS users
       FROM pg_depend d
       JOIN pg_proc p ON p.oid = d.refobjid
       LEFT JOIN pg_class i ON d.classid = 'pg_class'::regclass AND i.oid = d.objid AND i.relkind = 'i'
       LEFT JOIN pg_constraint c ON d.classid = 'pg_constraint'::regclass AND c.oid = d.objid
       LEFT JOIN pg_attrdef ad ON d.classid = 'pg_attrdef'::regclass AND ad.oid = d.objid
       LEFT JOIN pg_attribute g ON g.attrelid = ad.adrelid AND g.attnum = ad.adnum AND g.attgenerated = 's'
       WHERE d.refclassid = 'pg_proc'::regclass AND p.proname = ANY($1::text[]) AND pg_function_is_visible(p.oid)
         AND (i.oid IS NOT NULL OR c.oid IS NOT NULL OR g.attname IS NOT NULL)
       GROUP BY p.oid, p.proname
       ORDER BY 2`,
      [names],
    )
  ).rows;
}
