// `pnpm start` run through pnpm, as people run it, on ports it picks (--port 0):
// - once running, it prints a block to paste into another terminal (PAYKIT_SANDBOX_URL,
//   PAYKIT_GATEWAY_URL, the DATABASE_URL of its PGlite served over TCP, the admin token's file)
//   with the ports it really uses, and with that block the CLI reaches the gateway and the store;
//   its closing hint names the sandbox it really runs;
// - SIGTERM to the pnpm process (what a terminal's kill, a process manager or an IDE's stop sends;
//   Ctrl-C reaches every process of the terminal's group instead) stops every process below it
//   within 10 s: the dev process, the sandbox, the gateway and the worker (scripts/node.sh makes
//   node pnpm's own child).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { descendantsOf, killAll, REPO_ROOT, startPnpm, waitGone } from '@paykit/testing/pnpm-process';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(path.join(tmpdir(), 'paykit-pnpm-start-'));
const leftovers: number[] = [];

afterAll(() => {
  killAll(leftovers);
  rmSync(dir, { recursive: true, force: true });
});

/** The `export NAME=value` lines of the block, as a shell would read them (`$(cat FILE)` run). */
function pasted(stdout: string): Record<string, string> {
  const block = stdout.slice(stdout.indexOf('For `pnpm paykit` in another terminal'));
  const script = [...block.matchAll(/^ {2}(export [A-Z_]+=.*)$/gm)].map((m) => m[1]).join('\n');
  const printed = execFileSync('sh', ['-c', `${script}\nenv`], { cwd: REPO_ROOT, encoding: 'utf8', env: {} });
  const env: Record<string, string> = {};
  for (const line of printed.split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) env[line.slice(0, at)] = line.slice(at + 1);
  }
  return env;
}

describe('pnpm start through pnpm', () => {
  it('prints a block to paste with its real ports that the CLI works with, and SIGTERM to pnpm stops everything within 10 s', async () => {
    const run = startPnpm(
      'pnpm start',
      ['start', '--port', '0', '--gateway-port', '0', '--worker-port', '0', '--console-port', '0'],
      {
        PAYKIT_DATA_DIR: path.join(dir, 'data'),
        GATEWAY_ADMIN_TOKEN: '',
        // Its embedded store, served over TCP: the block's DATABASE_URL (CI sets one for the other tests).
        DATABASE_URL: '',
      },
    );
    // Once everything runs (the gateway is restarted with the cash secret before this line).
    await run.waitFor(/Ctrl-C stops everything/, 240_000);
    const below = descendantsOf(run.pid);
    leftovers.push(...below.map((p) => p.pid));
    const commands = below.map((p) => p.command).join('\n');
    for (const app of [
      'apps/dev/src/main.ts',
      'apps/sandbox/',
      'apps/webhook-gateway/',
      'apps/reconciliation-worker/',
      'apps/console/',
    ])
      expect(commands).toContain(app);

    const stdout = run.stdout();
    const sandboxUrl = /sandbox on (http:\/\/\S+)/.exec(stdout)![1]!;
    const gatewayUrl = /gateway on (http:\/\/\S+)/g.exec(stdout.slice(stdout.lastIndexOf('gateway on')))![1]!;
    const env = pasted(stdout);
    expect(env.PAYKIT_SANDBOX_URL).toBe(sandboxUrl);
    expect(env.PAYKIT_GATEWAY_URL).toBe(gatewayUrl);
    expect(env.DATABASE_URL).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
    expect(env.GATEWAY_ADMIN_TOKEN).toMatch(/^[\w-]{43}$/);
    // The hint reaches this run's sandbox, not the CLI's default 4010.
    expect(stdout).toContain(`Try \`PAYKIT_SANDBOX_URL=${sandboxUrl} pnpm paykit trigger money-in`);
    // With the block, the CLI reads the gateway's stored events and the store's reconciliation.
    const cli = (...args: string[]) =>
      execFileSync(
        process.execPath,
        ['--conditions=@paykit/source', path.join(REPO_ROOT, 'apps/scripts/src/main.ts'), '--json', ...args],
        { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir, ...env }, timeout: 60_000 },
      );
    expect((JSON.parse(cli('events', 'list', '--limit', '5')) as unknown[]).length).toBeGreaterThan(0);
    expect(JSON.parse(cli('reconcile', 'summary'))).toBeTruthy();

    process.kill(run.pid, 'SIGTERM');
    const gone = await waitGone(
      below.map((p) => p.pid),
      10_000,
    );
    expect(
      below.filter((p) => gone.alive.includes(p.pid)),
      `still running ${gone.ms} ms after SIGTERM`,
    ).toEqual([]);
    await run.exited;
    expect(run.stdout()).toContain('Stopping…');
  }, 300_000);
});
