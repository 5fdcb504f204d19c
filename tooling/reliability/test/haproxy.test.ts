// HAProxy as docs/operations.md shows it: the configuration there is the one the replicas and
// console-replicas scenarios generate (with the default ports), haproxy itself accepts it, and the scenario fails — not
// skips — where haproxy is required (CI, PAYKIT_REQUIRE_HAPROXY=1) and missing.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runNode } from '@paykit/testing/run-node';
import { describe, expect, it } from 'vitest';
import { HAPROXY, HAPROXY_REQUIRED, haproxyConfig, haproxyMissing } from '../src/haproxy.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const OPERATIONS = path.join(ROOT, 'docs/operations.md');

/** The configuration docs/operations.md tells operators to copy: HAProxy on 4020, the gateways on 4021–4023; the console on 4030, its replicas on 4031–4032. */
const DOCUMENTED = {
  bind: ':4020',
  gateways: ['127.0.0.1:4021', '127.0.0.1:4022', '127.0.0.1:4023'],
  statsSocket: '/run/haproxy/admin.sock',
  console: { bind: ':4030', servers: ['127.0.0.1:4031', '127.0.0.1:4032'] },
};

function documentedBlock(): string {
  const match = /```haproxy\n([\s\S]*?)```/.exec(readFileSync(OPERATIONS, 'utf8'));
  if (!match) throw new Error('docs/operations.md has no ```haproxy block');
  return match[1]!;
}

describe('the HAProxy configuration', () => {
  it('in docs/operations.md is the one the replicas scenarios run, with the default ports', () => {
    expect(documentedBlock()).toBe(haproxyConfig(DOCUMENTED));
  });

  it('is valid for haproxy (haproxy -c)', (context) => {
    const missing = haproxyMissing();
    if (missing && !HAPROXY_REQUIRED) context.skip(missing);
    if (missing) throw new Error(`HAProxy is required here (CI or PAYKIT_REQUIRE_HAPROXY=1) and ${missing}.`);
    const dir = mkdtempSync(path.join(tmpdir(), 'paykit-haproxy-check-'));
    try {
      const file = path.join(dir, 'haproxy.cfg');
      // The documented file, with a socket this test may create.
      writeFileSync(file, haproxyConfig({ ...DOCUMENTED, statsSocket: path.join(dir, 'admin.sock') }));
      const check = spawnSync(HAPROXY, ['-c', '-f', file], { encoding: 'utf8' });
      expect(check.status, check.stdout + check.stderr).toBe(0);
      expect(check.stdout + check.stderr).toContain('Configuration file is valid');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the replicas scenario fails, naming what to install, where haproxy is required and missing', async () => {
    // The CLI writes its report in the current folder: a scratch one.
    const cwd = mkdtempSync(path.join(tmpdir(), 'paykit-replicas-required-'));
    const run = await runNode(
      path.join(ROOT, 'tooling/reliability/src/cli.ts'),
      ['--reduced', 'scenarios/replicas.scenario'],
      {
        name: 'reliability',
        cwd,
        timeoutMs: 90_000,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          // Only looked at, never connected to: the scenario stops at the missing haproxy.
          DATABASE_URL: 'postgres://postgres@127.0.0.1:1/never',
          PAYKIT_REQUIRE_HAPROXY: '1',
          PAYKIT_HAPROXY: '/nonexistent/haproxy',
        },
      },
    ).finally(() => rmSync(cwd, { recursive: true, force: true }));
    const output = run.stdout + run.stderr;
    expect(run.code, output).toBe(1);
    expect(output).toContain(
      'HAProxy is required here (CI or PAYKIT_REQUIRE_HAPROXY=1) and /nonexistent/haproxy is missing: install it with `bash scripts/haproxy.sh`',
    );
    expect(output).toMatch(/tests: 0 passed, 1 failed, 0 skipped/);
  }, 120_000);
});
