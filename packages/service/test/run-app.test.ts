// runApp as a process, started by startAppProcess: exit 2 on a bad configuration, 1 when the start
// fails, `listening on <url>` once it runs, and exit 0 on SIGTERM.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppStartError, startAppProcess } from '../src/process.ts';

const MAIN = path.join(import.meta.dirname, 'fixtures/app.ts');
const start = (env: Record<string, string> = {}) =>
  startAppProcess({
    name: 'The fixture',
    main: MAIN,
    env: { PATH: process.env.PATH ?? '', ...env },
    startTimeoutMs: 30_000,
  });

describe('runApp', () => {
  it('prints its listening lines, answers, and exits 0 on SIGTERM', async () => {
    const app = await start();
    expect(app.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await (await fetch(app.url)).text()).toBe('ok');
    await app.stop();
    expect(await app.exited).toBe(0);
    expect(app.output()).toContain('a second line');
  });

  it('exits 2 with the configuration problems', async () => {
    const error = await start({ FIXTURE_FAIL: 'config' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppStartError);
    expect((error as AppStartError).code).toBe(2);
    expect((error as AppStartError).output).toContain(
      "The fixture app's configuration is not valid:\n  - FIXTURE_FAIL is config\nSee packages/service/test/fixtures/README.md for every variable.",
    );
  });

  it('exits 1 when the start fails, saying why', async () => {
    const error = await start({ FIXTURE_FAIL: 'start' }).catch((e: unknown) => e);
    expect((error as AppStartError).code).toBe(1);
    expect((error as AppStartError).message).toMatch(/^The fixture exited \(1\) before listening:\n/);
    expect((error as AppStartError).output).toContain('The fixture app could not start: the port is taken');
  });
});
