// What the CLI shows, found wrong by the reliability suite's secrets scenario: --dry-run of a request
// a client hands over as a Request (cash, signed) showed no headers and no body; the webhooks table
// had empty type and status columns (the configurations are camelCase); rotate-token wrote a
// `<profile>-<id>.token` file beside the `<profile>-<type>.token` that register wrote; cash webhook
// create printed a blank secret_token row; and a store error blamed `pnpm start`'s PGlite for a
// PostgreSQL server that does not answer, and turned a missing database secret into exit 1.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runNode, type NodeRun as Run } from '@paykit/testing/run-node';
import { startSandboxProcess, type SandboxProcess } from '@paykit/testing/sandbox';
import { declareSecret } from '@paykit/testing/secret-audit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DryRunStop, dryRunFetch } from '../src/cli/dry-run.ts';

const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');

let sandbox: SandboxProcess;
let dir: string;

/** `paykit ARGS` as a child process with only the variables it needs; its output goes to the secret audit. */
function paykit(args: string[], extraEnv: Record<string, string> = {}): Promise<Run> {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    PAYKIT_CONFIG: '',
    PAYKIT_SANDBOX_URL: sandbox.url,
    PAYKIT_TOKEN_DIR: path.join(dir, 'tokens'),
    ...extraEnv,
  };
  return runNode(MAIN, args, { name: 'paykit', env, cwd: dir });
}

beforeAll(async () => {
  sandbox = await startSandboxProcess();
  dir = mkdtempSync(path.join(tmpdir(), 'paykit-cli-output-'));
});

afterAll(async () => {
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('--dry-run', () => {
  it('shows the headers (credentials redacted) and body of a request passed as a Request', async () => {
    const request = new Request('http://127.0.0.1:9/cash/api/v1/cash/webhooks', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-client-id': 'cashsandboxacme00000000000000001',
        'x-signature': 'ab'.repeat(32),
        'x-timestamp': '1795000000',
      },
      body: JSON.stringify({ endpoint_url: 'https://hooks.example.com/cash' }),
    });
    const stop = await dryRunFetch()(request).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(stop).toBeInstanceOf(DryRunStop);
    expect((stop as DryRunStop).request).toEqual({
      method: 'POST',
      url: 'http://127.0.0.1:9/cash/api/v1/cash/webhooks',
      headers: {
        'content-type': 'application/json',
        'x-client-id': '[redacted]',
        'x-signature': '[redacted]',
        'x-timestamp': '1795000000',
      },
      body: { endpoint_url: 'https://hooks.example.com/cash' },
    });
  });

  it('shows the signed cash request the CLI would send, and sends nothing', async () => {
    const run = await paykit(['--dry-run', 'cash', 'webhook', 'create', '--url', 'http://127.0.0.1:9/cash']);
    expect(run.code, run.stderr).toBe(0);
    const { request } = JSON.parse(run.stdout) as {
      request: { method: string; headers: Record<string, string>; body: unknown };
    };
    expect(request.method).toBe('POST');
    expect(request.headers).toMatchObject({
      'x-client-id': '[redacted]',
      'x-signature': '[redacted]',
      'x-timestamp': expect.stringMatching(/^\d+$/),
    });
    expect(request.body).toEqual({ endpoint_url: 'http://127.0.0.1:9/cash' });
    expect((await paykit(['cash', 'webhook', 'get'])).code).toBe(1); // none was created
  });
});

describe('webhook and cash outputs', () => {
  it('lists the type and status of each configuration, and rotates a token into the file register wrote', async () => {
    expect((await paykit(['webhooks', 'register', '--all-types', 'http://127.0.0.1:4020'])).code).toBe(0);
    const table = await paykit(['webhooks', 'list']);
    expect(table.code).toBe(0);
    const [header, ...rows] = table.stdout.trim().split('\n');
    expect(header!.split(/\s+/)).toEqual(['id', 'webhookType', 'url', 'webhookStatus', 'createdAt']);
    expect(rows.map((row) => row.split(/\s+/)[1])).toEqual(['MONEY_IN', 'STATUS_UPDATE', 'CEP', 'REFUND', 'REPORT']);
    expect(rows.every((row) => row.split(/\s+/)[3] === 'ACTIVE')).toBe(true);

    const tokens = path.join(dir, 'tokens');
    const registered = readFileSync(path.join(tokens, 'sandbox-cep.token'), 'utf8').trim();
    declareSecret(registered);
    const cep = (
      JSON.parse((await paykit(['--json', 'webhooks', 'list'])).stdout) as { id: string; webhookType: string }[]
    ).find((w) => w.webhookType === 'CEP')!;
    const rotated = await paykit(['--json', 'webhooks', 'rotate-token', cep.id]);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect((JSON.parse(rotated.stdout) as { tokenFile: string }).tokenFile).toBe(
      path.join(tokens, 'sandbox-cep.token'),
    );
    const replaced = readFileSync(path.join(tokens, 'sandbox-cep.token'), 'utf8').trim();
    declareSecret(replaced);
    expect(replaced).not.toBe(registered);
    expect(readdirSync(tokens).filter((file) => file.endsWith('.token'))).toHaveLength(5);
  });

  it('prints a new cash webhook without a secret_token row, the secret masked and in its file', async () => {
    const run = await paykit(['cash', 'webhook', 'create', '--url', 'http://127.0.0.1:9/cash']);
    expect(run.code, run.stderr).toBe(0);
    const secret = readFileSync(path.join(dir, 'tokens', 'sandbox-cash.secret'), 'utf8').trim();
    declareSecret(secret);
    const keys = run.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/)[0]);
    expect(keys).not.toContain('secret_token');
    expect(keys).toEqual(expect.arrayContaining(['id', 'endpoint_url', 'secretTokenMasked', 'secretTokenFile']));
    expect(run.stdout).not.toContain(secret);
  });
});

describe('store errors', () => {
  it('blames the server, not `pnpm start`, when a PostgreSQL store does not answer', async () => {
    const run = await paykit(['reconcile', 'summary'], { DATABASE_URL: 'postgres://paykit@127.0.0.1:9/paykit' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/PostgreSQL paykit@127\.0\.0\.1:9\/paykit is unavailable/);
    expect(run.stderr).not.toMatch(/pnpm start/);
  });

  it('still names `pnpm start` when the PGlite folder is held', async () => {
    const data = path.join(dir, 'held');
    // A live process (this one) holds the folder's lock, as `pnpm start` would.
    mkdirSync(data);
    writeFileSync(path.join(data, 'pglite.lock'), String(process.pid));
    const run = await paykit(['reconcile', 'summary'], { PAYKIT_DATA_DIR: data });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/in use/);
    expect(run.stderr).toMatch(/pnpm start/);
  });

  it('calls a database secret the environment lacks wrong usage (exit 2)', async () => {
    const config = path.join(dir, 'store-profile.json');
    writeFileSync(
      config,
      JSON.stringify({ profiles: { ops: { environment: 'staging', database: { url: { env: 'OPS_DATABASE_URL' } } } } }),
    );
    const run = await paykit(['--config', config, '--profile', 'ops', 'reconcile', 'summary']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/OPS_DATABASE_URL is not set/);
  });
});
