// `pnpm paykit …` as the README says to run it, through pnpm: SIGTERM or SIGINT to the pnpm
// process stops `paykit listen` within 10 s and exits 0, as the README says, as does Ctrl-C (SIGINT
// to the whole process group, so node gets it twice: from the terminal and from pnpm); and `pnpm -s paykit --json …` prints JSON alone
// on stdout (pnpm's own `> paykit …` banner goes to stdout without -s). A scripted gateway answers
// the admin API with no events.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { descendantsOf, killAll, startPnpm, waitGone, type PnpmProcess } from '@paykit/testing/pnpm-process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let gateway: http.Server;
let env: Record<string, string>;
const leftovers: number[] = [];

beforeAll(async () => {
  gateway = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"events":[]}');
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  env = {
    PAYKIT_GATEWAY_URL: `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`,
    GATEWAY_ADMIN_TOKEN: 'listen-admin-token-'.padEnd(40, 'x'),
    PAYKIT_CONFIG: '',
    PAYKIT_PROFILE: 'sandbox',
  };
});
afterAll(async () => {
  killAll(leftovers);
  gateway.closeAllConnections();
  await new Promise<void>((resolve) => gateway.close(() => resolve()));
});

/** `pnpm paykit listen` once it listens, and every process below pnpm then. */
async function listening(detached = false): Promise<{ run: PnpmProcess; below: number[] }> {
  const run = startPnpm('pnpm paykit listen', ['paykit', 'listen', '--interval', '100'], env, { detached });
  await run.waitFor(/Listening to/, 60_000, 'stderr');
  const below = descendantsOf(run.pid).map((p) => p.pid);
  leftovers.push(...below);
  // node itself, as pnpm's own child (no shell or shim between them to swallow a signal).
  expect(descendantsOf(run.pid).map((p) => p.command)).toEqual([
    expect.stringMatching(/\/bin\/node --conditions=@paykit\/source --import .* apps\/scripts\/src\/main\.ts listen/),
  ]);
  return { run, below };
}

describe('pnpm paykit', () => {
  it('SIGTERM or SIGINT to pnpm, or Ctrl-C, stops listen and everything below pnpm within 10 s', async () => {
    const codes: Record<string, unknown> = {};
    for (const how of ['SIGTERM', 'SIGINT', 'Ctrl-C'] as const) {
      const { run, below } = await listening(how === 'Ctrl-C');
      // Ctrl-C: the terminal signals its whole foreground process group, pnpm and node alike.
      if (how === 'Ctrl-C') process.kill(-run.pid, 'SIGINT');
      else process.kill(run.pid, how);
      const gone = await waitGone(below, 10_000);
      expect(gone.alive, `${how}: still running ${gone.ms} ms after it`).toEqual([]);
      codes[how] = await run.exited;
    }
    // What the README says: listen stops and exits 0, and pnpm exits with its child's code.
    expect(codes).toEqual({
      SIGTERM: { code: 0, signal: null },
      SIGINT: { code: 0, signal: null },
      'Ctrl-C': { code: 0, signal: null },
    });
  }, 120_000);

  it('pnpm -s paykit --json prints JSON alone on stdout; without -s, pnpm prints its banner first', async () => {
    const silent = startPnpm('pnpm -s paykit', ['-s', 'paykit', '--json', 'events', 'list'], env);
    expect(await silent.exited).toEqual({ code: 0, signal: null });
    expect(JSON.parse(silent.stdout())).toEqual([]);
    const loud = startPnpm('pnpm paykit', ['paykit', '--json', 'events', 'list'], env);
    expect(await loud.exited).toEqual({ code: 0, signal: null });
    expect(loud.stdout()).toMatch(/^\s*> paykit@/);
  }, 60_000);
});
