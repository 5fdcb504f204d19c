// `pnpm start` (scripts/start.ts) as people run it: --help, one-line usage errors (exit 2), a taken
// port named with the flag that changes it, and the gateway's admin token written to a file only
// its owner reads, its path printed and never the token.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { declareSecret } from '@paykit/testing/secret-audit';
import { runNode, type NodeRun } from '@paykit/testing/run-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const START = path.resolve(import.meta.dirname, '../../../scripts/start.ts');
let dir: string;

const start = (args: string[], env: Record<string, string> = {}, timeoutMs = 30_000): Promise<NodeRun> =>
  runNode(START, args, { name: 'pnpm start', env: { PATH: process.env.PATH, HOME: dir, PAYKIT_DATA_DIR: path.join(dir, 'data'), ...env }, timeoutMs });

function expectOneLine(run: NodeRun, code: number, message: RegExp): void {
  expect(run.code, run.stderr).toBe(code);
  expect(run.stderr.trim().split('\n')).toHaveLength(1);
  expect(run.stderr.trim()).toMatch(message);
  expect(run.stderr).not.toMatch(/\n\s+at /);
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'paykit-start-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('pnpm start', () => {
  it('prints its usage with --help and refuses an unknown flag in one line (exit 2)', async () => {
    const help = await start(['--help']);
    expect(help.code).toBe(0);
    for (const flag of ['--once', '--persist', '--port', '--gateway-port', '--console-port']) expect(help.stdout).toContain(flag);
    expectOneLine(await start(['--bogus']), 2, /^error: Unknown option '--bogus'\. Run `pnpm start --help` for the options\.$/);
    expectOneLine(await start(['--port']), 2, /argument missing/);
    expectOneLine(await start(['--port', 'abc']), 2, /Invalid port "abc" \(--port or SANDBOX_PORT\)/);
  });

  it('names a taken port and the flag that changes it, before running anything', async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, resolve));
    const taken = (holder.address() as AddressInfo).port;
    try {
      expectOneLine(await start(['--once', '--port', String(taken)]), 1, new RegExp(`^error: port ${taken} is taken: .*\`pnpm start --port N\``));
      expectOneLine(await start(['--once', '--port', '0', '--console-port', String(taken)]), 1, new RegExp(`^error: port ${taken} is taken: .*\`pnpm start --console-port N\``));
    } finally {
      holder.close();
    }
  });

  it('writes the admin token it makes to a 0600 file and prints its path, never the token or the store’s connection', async () => {
    const run = await start(['--once', '--persist', '--port', '0'], {}, 300_000);
    const file = path.join(dir, 'data', 'gateway-admin-token');
    const token = readFileSync(file, 'utf8').trim();
    declareSecret(token);
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(run.stdout).toContain(`export GATEWAY_ADMIN_TOKEN=$(cat `);
    expect(run.stdout).toContain('gateway-admin-token');
    expect(run.stdout + run.stderr).not.toContain(token);
    expect(run.stdout).toMatch(/gateway on http:\/\/\S+ \(store: PGlite in /);
    expect(run.code, run.stdout.slice(-2000)).toBe(0);
    // Given one in the environment, it writes nothing and says where the token came from.
    const given = await start(['--once', '--port', '0'], { GATEWAY_ADMIN_TOKEN: 'adm_test_Hk4pQ8wZ1xC6vB9nM3jL7tR2sD5fG0yU', PAYKIT_DATA_DIR: path.join(dir, 'other') }, 300_000);
    expect(given.stdout).toContain('admin token: GATEWAY_ADMIN_TOKEN from the environment');
    expect(() => statSync(path.join(dir, 'other', 'gateway-admin-token'))).toThrow();
  }, 600_000);
});
