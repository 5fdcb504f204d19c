// The console as it runs: its entry (src/main.ts) started as a process on a PGlite folder, with a
// password and a metrics token. It migrates the folder, prints its URL and who may use it (never
// the password, the token or the folder's path), answers its probes and a login, keeps a login
// across a restart of the process, and stops on SIGTERM. Started through pnpm, a signal to pnpm
// stops every process below it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startAppProcess, type AppProcess } from '@paykit/testing/app-process';
import { stopsWithPnpm } from '@paykit/testing/app-signals';
import { TEST_SECRETS } from '@paykit/testing/secret-audit';
import { afterAll, describe, expect, it } from 'vitest';

const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');
const dir = mkdtempSync(path.join(tmpdir(), 'paykit-console-process-'));
const running: AppProcess[] = [];
afterAll(async () => {
  for (const app of running) await app.stop();
  rmSync(dir, { recursive: true, force: true });
});

const env = {
  CONSOLE_PORT: '0',
  PAYKIT_DATA_DIR: path.join(dir, 'data'),
  DATABASE_URL: '',
  CONSOLE_PASSWORD: TEST_SECRETS.consolePassword,
  METRICS_TOKEN: TEST_SECRETS.metricsToken,
  CONSOLE_LOG_LEVEL: 'warn',
};

const start = async (extra: Record<string, string> = {}) => {
  // On PGlite the console opens the folder and migrates every set before it listens: a minute or
  // more on two cores that run the rest of `pnpm check` beside it.
  const app = await startAppProcess({
    name: 'The console',
    main: MAIN,
    env: { ...env, ...extra },
    startTimeoutMs: 150_000,
  });
  running.push(app);
  return app;
};

describe('the console process', () => {
  it('starts on its own store, says who may use it, and keeps a login across a restart', async () => {
    const first = await start();
    // The line after `listening on`: it may arrive a moment later.
    for (let i = 0; i < 100 && !first.output().includes('/metrics:'); i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(first.output()).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+ \(store: pglite\)$/m);
    expect(first.output()).toContain(
      'console: login required (CONSOLE_PASSWORD), logins of 480 min kept in the database; /metrics: bearer token (METRICS_TOKEN)',
    );
    for (const secret of [TEST_SECRETS.consolePassword, TEST_SECRETS.metricsToken, dir])
      expect(first.output()).not.toContain(secret);
    expect(await (await fetch(`${first.url}/healthz`)).json()).toMatchObject({ ok: true, store: 'pglite' });
    expect((await fetch(`${first.url}/metrics`)).status).toBe(401);
    const scraped = await fetch(`${first.url}/metrics`, {
      headers: { authorization: `Bearer ${TEST_SECRETS.metricsToken}` },
    });
    expect(await scraped.text()).toContain('console_sessions 0');

    const form = await fetch(`${first.url}/login`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
    const csrfCookie = form.headers.getSetCookie()[0]!.split(';')[0]!;
    const login = await fetch(`${first.url}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: csrfCookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, password: TEST_SECRETS.consolePassword }).toString(),
    });
    expect(login.status).toBe(303);
    const cookie = login.headers
      .getSetCookie()
      .find((c) => c.startsWith('paykit_console='))!
      .split(';')[0]!;
    expect((await fetch(`${first.url}/parked`, { headers: { cookie } })).status).toBe(200);

    await first.stop();
    expect(await first.exited).toBe(0);
    running.splice(running.indexOf(first), 1);
    // PGlite is one process per folder: the same folder, once the first has let it go.
    const second = await start();
    expect((await fetch(`${second.url}/parked`, { headers: { cookie } })).status).toBe(200);
    await second.stop();
    running.splice(running.indexOf(second), 1);
  }, 360_000);

  it('refuses to open beyond this machine without a password or an operator, naming the variable', async () => {
    const app = startAppProcess({
      name: 'The console',
      main: MAIN,
      env: { ...env, CONSOLE_PASSWORD: '', CONSOLE_HOST: '0.0.0.0' },
      startTimeoutMs: 30_000,
    });
    await expect(app).rejects.toThrow(/CONSOLE_HOST=0\.0\.0\.0 would open the console beyond this machine/);
  }, 60_000);

  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    it(`started through pnpm, stops every process below pnpm within 10 s on ${signal} to pnpm`, async () => {
      const result = await stopsWithPnpm({
        app: '@paykit/console',
        env: { ...env, PAYKIT_DATA_DIR: path.join(dir, signal) },
        ready: /listening on http/,
        signal,
      });
      expect(result.below.join('\n')).toContain('src/main.ts');
      expect(result.alive, `still running ${result.ms} ms after ${signal}`).toEqual([]);
    }, 180_000);
});
