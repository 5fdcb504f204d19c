// paykit-store as a process, the way ops run it.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFunctions, loadMigrations } from '../src/index.ts';
import { testDatabases } from '../src/testing.ts';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const ALL = loadMigrations().map((migration) => migration.name);
const FUNCTIONS = loadFunctions().length;
// Each run is a fresh process that starts PGlite (a WASM PostgreSQL) from scratch: seconds on a busy machine.
const SLOW = 60_000;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string | undefined>, cwd?: string): Promise<Run> {
  const childEnv = { ...process.env, ...env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete childEnv[name];
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: childEnv, timeout: 60_000, cwd }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('paykit-store', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'paykit-store-cli-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'migrates PGlite at PAYKIT_DATA_DIR, then has nothing to apply',
    async () => {
      const dataDir = path.join(dir, 'pglite');
      const env = { DATABASE_URL: undefined, PAYKIT_DATA_DIR: dataDir };
      const first = await run(['migrate'], env);
      expect(first).toEqual({
        code: 0,
        stdout: [
          `migrating PGlite at ${dataDir}`,
          ...ALL.map((name) => `applied ${name}`),
          `functions applied: ${FUNCTIONS}`,
          `current version: ${ALL.at(-1)}`,
          '',
        ].join('\n'),
        stderr: '',
      });
      const second = await run(['migrate'], env);
      expect(second.stdout).toBe(
        [
          `migrating PGlite at ${dataDir}`,
          'nothing to apply',
          'functions: each as its file says already',
          `current version: ${ALL.at(-1)}`,
          '',
        ].join('\n'),
      );
    },
    SLOW,
  );

  it(
    'prints help (exit 0) and refuses wrong usage (exit 2)',
    async () => {
      const help = await run(['--help'], {});
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^Usage: paykit-store migrate/);
      for (const args of [[], ['migrat'], ['migrate', '--now']]) {
        const wrong = await run(args, {});
        expect(wrong.code).toBe(2);
        expect(wrong.stderr).toMatch(/^paykit-store: (no command given|unknown arguments: .+)\n\nUsage:/);
      }
    },
    SLOW,
  );

  it(
    'applies the set of each package named, found from the current folder, and refuses a run without it',
    async () => {
      // A package with a migration set, installed where the command runs.
      const project = path.join(dir, 'project');
      const widgets = path.join(project, 'node_modules', '@fixture', 'widgets');
      mkdirSync(path.join(widgets, 'migrations'), { recursive: true });
      mkdirSync(path.join(widgets, 'sql', 'functions'), { recursive: true });
      writeFileSync(path.join(widgets, 'package.json'), JSON.stringify({ name: '@fixture/widgets', version: '1.0.0' }));
      writeFileSync(path.join(widgets, 'migrations', '9100_widgets.sql'), 'CREATE TABLE widgets (name text);');
      writeFileSync(
        path.join(widgets, 'sql', 'functions', 'widget_count.sql'),
        'CREATE OR REPLACE FUNCTION widget_count() RETURNS bigint LANGUAGE sql AS $$ SELECT count(*) FROM widgets $$;',
      );
      const dataDir = path.join(dir, 'widgets-pglite');
      const env = { DATABASE_URL: undefined, PAYKIT_DATA_DIR: dataDir };
      const first = await run(['migrate', '@fixture/widgets'], env, project);
      expect(first.stderr).toBe('');
      expect(first.stdout).toContain(
        'applied 9100_widgets\nfunctions applied: ' + (FUNCTIONS + 1) + '\ncurrent version: 9100_widgets\n',
      );
      const without = await run(['migrate'], env, project);
      expect(without.code).toBe(1);
      expect(without.stderr).toMatch(
        /^paykit-store: this database holds migrations that no set given to migrate\(\) has: @fixture\/widgets \(9100_widgets\.sql\)\..*paykit-store migrate <package>/,
      );
      const unknown = await run(['migrate', '@fixture/gadgets'], env, project);
      expect(unknown).toMatchObject({ code: 1, stdout: '' });
      expect(unknown.stderr).toMatch(
        /^paykit-store: cannot find the package @fixture\/gadgets from .*project: run the command where it is installed/,
      );
    },
    SLOW,
  );

  it(
    'fails with exit 1 on a bad DATABASE_URL, naming the problem and never the password',
    async () => {
      const password = 'Sup3r-s3cret-pw';
      const bad = await run(['migrate'], { DATABASE_URL: `mysql://admin:${password}@127.0.0.1/paykit` });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/^paykit-store: DATABASE_URL must start with postgres:\/\//);
      const down = await run(['migrate'], { DATABASE_URL: `postgres://admin:${password}@127.0.0.1:1/paykit` });
      expect(down.code).toBe(1);
      expect(down.stderr).toMatch(
        /^paykit-store: PostgreSQL admin@127\.0\.0\.1:1\/paykit is unavailable: .*ECONNREFUSED/,
      );
      expect(bad.stdout + bad.stderr + down.stdout + down.stderr).not.toContain(password);
    },
    SLOW,
  );

  const postgres = testDatabases().find((kind) => kind.name === 'postgres');
  it.runIf(postgres)(
    'migrates the PostgreSQL database at DATABASE_URL',
    async () => {
      const opened = await postgres!.open({ migrate: false });
      try {
        const result = await run(['migrate'], { DATABASE_URL: opened.url });
        expect(result.code).toBe(0);
        expect(result.stdout).toContain(`migrating ${opened.db.description}\n`);
        expect(result.stdout).toContain(`applied ${ALL[0]}\n`);
        expect((await opened.db.query('SELECT name FROM schema_migrations ORDER BY version')).rows).toEqual(
          ALL.map((name) => ({ name })),
        );
      } finally {
        await opened.drop();
      }
    },
    SLOW,
  );
});
