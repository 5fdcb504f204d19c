// SIGTERM to the pnpm process of `pnpm start` (what a terminal's kill, a process manager or an
// IDE's stop sends; Ctrl-C reaches every process of the terminal's group instead) stops every
// process below it within 10 s: the dev process, the sandbox, the gateway and the worker. pnpm
// passes the signal to its own child only, pnpm's node shim passes it on to nobody: the root
// script execs node, and node stops once its parent is gone (scripts/stop-with-parent.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { descendantsOf, killAll, startPnpm, waitGone } from '@paykit/testing/pnpm-process';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(path.join(tmpdir(), 'paykit-start-signal-'));
const leftovers: number[] = [];

afterAll(() => {
  killAll(leftovers);
  rmSync(dir, { recursive: true, force: true });
});

describe('pnpm start and signals', () => {
  it('SIGTERM to pnpm stops the dev process and every app within 10 s', async () => {
    const run = startPnpm('pnpm start', ['start', '--port', '0', '--gateway-port', '0', '--console-port', '0'], {
      PAYKIT_DATA_DIR: path.join(dir, 'data'),
    });
    // Once everything runs (the gateway is restarted with the cash secret before this line).
    await run.waitFor(/Ctrl-C stops everything/, 240_000);
    const below = descendantsOf(run.pid);
    leftovers.push(...below.map((p) => p.pid));
    const commands = below.map((p) => p.command).join('\n');
    for (const app of ['apps/dev/src/main.ts', 'apps/sandbox/', 'apps/webhook-gateway/', 'apps/reconciliation-worker/'])
      expect(commands).toContain(app);

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
