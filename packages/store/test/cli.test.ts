// paykit-store as a process, the way ops run it.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations } from '../src/index.ts';
import { testDatabases } from '../src/testing.ts';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const ALL = loadMigrations().map((migration) => migration.name);
// Each run is a fresh process that starts PGlite (a WASM PostgreSQL) from scratch: seconds on a busy machine.
const SLOW = 60_000;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string | undefined>): Promise<Run> {
  const childEnv = { ...process.env, ...env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete childEnv[name];
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: childEnv, timeout: 60_000 }, (error, stdout, stderr) => {
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
          `current version: ${ALL.at(-1)}`,
          '',
        ].join('\n'),
        stderr: '',
      });
      const second = await run(['migrate'], env);
      expect(second.stdout).toBe(
        [`migrating PGlite at ${dataDir}`, 'nothing to apply', `current version: ${ALL.at(-1)}`, ''].join('\n'),
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
      for (const args of [[], ['migrat'], ['migrate', 'now']]) {
        const wrong = await run(args, {});
        expect(wrong.code).toBe(2);
        expect(wrong.stderr).toMatch(/^paykit-store: (no command given|unknown arguments: .+)\n\nUsage:/);
      }
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
