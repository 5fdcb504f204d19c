// `pnpm start` (apps/dev) as people run it: --help, one-line usage errors (exit 2), a taken port
// named with the flag that changes it, the gateway's admin token written to a file only its owner
// reads (its path printed, never the token), a child that fails named with its exit code and its
// last lines, and no child process left behind however the run ends.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { declareSecret, record } from '@paykit/testing/secret-audit';
import { runNode, type NodeRun } from '@paykit/testing/run-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const START = path.resolve(import.meta.dirname, '../src/main.ts');
let dir: string;

const start = (args: string[], env: Record<string, string> = {}, timeoutMs = 30_000): Promise<NodeRun> =>
  runNode(START, args, {
    name: 'pnpm start',
    env: { PATH: process.env.PATH, HOME: dir, PAYKIT_DATA_DIR: path.join(dir, 'data'), ...env },
    timeoutMs,
  });

/** The pids of `pid`'s child processes now. */
const childrenOf = (pid: number): number[] => {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map(Number);
  } catch {
    return []; // ps exits 1 when there is none
  }
};
/** The child whose command line names `app` (its entry is apps/<app>/src/main.ts). */
const childRunning = (children: number[], app: string): number =>
  children.find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(`apps/${app}/`))!;
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The last lines of the children's logs of the runs on a data dir (`pnpm start` writes them to <dir>/logs), for a failure's message. */
const childLogs = (dataDir: string): string => {
  const logs = path.join(dataDir, 'logs');
  const names = (() => {
    try {
      return readdirSync(logs).filter((name) => name.endsWith('.log'));
    } catch {
      return [];
    }
  })();
  return names
    .map((name) => `\n--- ${name}\n${readFileSync(path.join(logs, name), 'utf8').split('\n').slice(-40).join('\n')}`)
    .join('');
};

/** `pnpm start` running until `until` matches its stdout; then `act` on it, and its end. */
function startUntil(
  args: string[],
  env: Record<string, string>,
  until: RegExp,
  act: (pid: number, children: number[]) => void,
): Promise<NodeRun & { children: number[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=@paykit/source', START, ...args], {
      env: { PATH: process.env.PATH, HOME: dir, PAYKIT_DATA_DIR: path.join(dir, 'data'), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let children: number[] = [];
    const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
    child.stdout.on('data', (chunk: Buffer) => {
      const before = stdout;
      stdout += chunk.toString();
      if (!until.test(before) && until.test(stdout)) {
        children = childrenOf(child.pid!);
        act(child.pid!, children);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      record('pnpm start stdout', stdout);
      record('pnpm start stderr', stderr);
      resolve({ code, stdout, stderr, children });
    });
  });
}

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
    for (const flag of ['--once', '--persist', '--port', '--gateway-port', '--worker-port', '--console-port'])
      expect(help.stdout).toContain(flag);
    expectOneLine(
      await start(['--bogus']),
      2,
      /^error: Unknown option '--bogus'\. Run `pnpm start --help` for the options\.$/,
    );
    expectOneLine(await start(['--port']), 2, /argument missing/);
    expectOneLine(await start(['--port', 'abc']), 2, /Invalid port "abc" \(--port or SANDBOX_PORT\)/);
  });

  it('names a taken port and the flag that changes it, before running anything', async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, resolve));
    const taken = (holder.address() as AddressInfo).port;
    try {
      expectOneLine(
        await start(['--once', '--port', String(taken)]),
        1,
        new RegExp(`^error: port ${taken} is taken: .*\`pnpm start --port N\``),
      );
      expectOneLine(
        await start(['--once', '--port', '0', '--console-port', String(taken)]),
        1,
        new RegExp(`^error: port ${taken} is taken: .*\`pnpm start --console-port N\``),
      );
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
    const given = await start(
      ['--once', '--port', '0'],
      { GATEWAY_ADMIN_TOKEN: 'adm_test_Hk4pQ8wZ1xC6vB9nM3jL7tR2sD5fG0yU', PAYKIT_DATA_DIR: path.join(dir, 'other') },
      300_000,
    );
    expect(given.stdout).toContain('admin token: GATEWAY_ADMIN_TOKEN from the environment');
    expect(() => statSync(path.join(dir, 'other', 'gateway-admin-token'))).toThrow();
  }, 600_000);

  it('names a child that fails to start, with its exit code and its last lines, and leaves no child behind', async () => {
    // The gateway refuses its configuration (exit 2) after the sandbox is up.
    const run = await start(['--once', '--port', '0'], { GATEWAY_UNKNOWN_ACCOUNT: 'sometimes' }, 300_000);
    expect(run.code, run.stdout.slice(-2000)).toBe(1);
    expect(run.stderr).toMatch(
      /✖ the gateway exited with code 2\. Its last lines \(all of them in \S+start-\S+\.log\):/,
    );
    expect(run.stderr).toContain('GATEWAY_UNKNOWN_ACCOUNT must be');
    // The sandbox it had started is stopped: its port answers nothing.
    const sandboxUrl = /sandbox on (http:\/\/\S+)/.exec(run.stdout)![1]!;
    await expect(fetch(sandboxUrl)).rejects.toThrow();
  }, 320_000);

  it('stops every child on SIGTERM, and fails the run when a child dies, naming it', async () => {
    // SIGTERM while the scenario runs: every child stops, the run exits 0.
    const stopped = await startUntil(['--port', '0'], {}, /console on http/, (pid) => process.kill(pid, 'SIGTERM'));
    expect(stopped.children.length, stopped.stdout).toBeGreaterThanOrEqual(4);
    expect(stopped.stdout).toContain('Stopping…');
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.children.filter(alive)).toEqual([]);
    // A child killed while everything runs: the run names it and exits 1, and stops the others. On
    // a store of its own: this is about a child dying, not about the store the run above left.
    const died = await startUntil(
      ['--port', '0'],
      { PAYKIT_DATA_DIR: path.join(dir, 'died') },
      /Ctrl-C stops everything/,
      (_pid, children) => process.kill(childRunning(children, 'reconciliation-worker'), 'SIGKILL'),
    );
    expect(died.code, `${died.stdout.slice(-2000)}${childLogs(path.join(dir, 'died'))}`).toBe(1);
    expect(died.stderr).toMatch(/✖ the reconciliation worker stopped: SIGKILL\. Its last lines/);
    expect(died.children.filter(alive)).toEqual([]);
  }, 700_000);
});
