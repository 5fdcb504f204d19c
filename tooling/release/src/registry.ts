// A private npm registry for the publish test: Verdaccio on a loopback port, with its storage
// in a temporary folder, no uplink (nothing leaves the machine, nothing is proxied), and one
// user whose token publishes. The token is a secret: it is written only to the .npmrc files
// that need it and never printed.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '@paykit/testing/ports';
import { childEnv, stopChild, waitForOutput } from './exec.ts';

// Its JavaScript entry, run by this Node itself: the node_modules/.bin shim would start it through
// the workspace's `node` wrapper script, and a SIGTERM to the wrapper orphans the registry.
const VERDACCIO = path.resolve(import.meta.dirname, '../node_modules/verdaccio/bin/verdaccio');

export interface LocalRegistry {
  url: string;
  /** A token of a registered user that may publish @paykit/*. */
  token: string;
  /** The .npmrc lines that point npm and pnpm at this registry with the token. */
  npmrc: string;
  close(): Promise<void>;
}

function config(storage: string, htpasswd: string): string {
  return [
    `storage: ${JSON.stringify(storage)}`,
    'auth:',
    '  htpasswd:',
    `    file: ${JSON.stringify(htpasswd)}`,
    '    max_users: 1',
    'uplinks: {}',
    'packages:',
    "  '@paykit/*':",
    '    access: $authenticated',
    '    publish: $authenticated',
    "  '**':",
    '    access: $authenticated',
    '    publish: $authenticated',
    'web:',
    '  enable: false',
    'log: { type: stdout, format: json, level: warn }',
    '',
  ].join('\n');
}

/** Starts Verdaccio with its files under `dir`, and registers the publishing user. */
export async function startLocalRegistry(dir: string): Promise<LocalRegistry> {
  mkdirSync(path.join(dir, 'storage'), { recursive: true });
  const configFile = path.join(dir, 'config.yaml');
  writeFileSync(configFile, config(path.join(dir, 'storage'), path.join(dir, 'htpasswd')));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    process.execPath,
    [VERDACCIO, '--config', configFile, '--listen', `127.0.0.1:${port}`],
    { cwd: dir, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    await waitForOutput(child, /http address|listening|verdaccio\/\d/i, () => output, 30_000).catch(() => undefined);
    await waitUntilUp(url, 30_000);
    const password = `pw-${process.pid}-${Date.now()}`;
    const answer = await fetch(`${url}/-/user/org.couchdb.user:paykit-release`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'paykit-release', password }),
    });
    const body = (await answer.json()) as { token?: unknown };
    if (answer.status !== 201 || typeof body.token !== 'string')
      throw new Error(`Verdaccio did not register the publishing user (HTTP ${answer.status}).`);
    const token = body.token;
    const npmrc = `registry=${url}/\n@paykit:registry=${url}/\n//127.0.0.1:${port}/:_authToken=${token}\n`;
    return { url, token, npmrc, close: () => stopChild(child) };
  } catch (error) {
    await stopChild(child);
    throw new Error(
      `The local registry did not start: ${error instanceof Error ? error.message : String(error)}\n${output}`,
      { cause: error },
    );
  }
}

async function waitUntilUp(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(`${url}/-/ping`)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url}/-/ping did not answer within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
