// The secret audit: every line a test worker writes (console, stdout, stderr, warnings) and every
// failed test's error is recorded, and after the run all of it is searched for the secrets the
// suite was configured with (the sandbox's default seed) and for anything shaped like a JWT.
// A secret found anywhere fails the run. Wired in vitest.config.ts (setupFiles + globalSetup).
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';

export const AUDIT_DIR_ENV = 'PAYKIT_SECRET_AUDIT_DIR';

/** Values that must never appear in any output: the default seed's keys, secrets and tokens. */
export const CONFIGURED_SECRETS: readonly string[] = [
  'pk_staging_sandbox_acme_0000000001',
  'pk_production_sandbox_acme_000001',
  'cs_staging_sandbox_acme_000000001',
  'cs_production_sandbox_acme_00001',
  'dd_sandbox_key_acme_00000000000001',
  'cash_secret_sandbox_acme_0000001',
  'bp_sandbox_token_acme_000000000001',
  'gc_sandbox_token_acme_000000000001',
  'lt_sandbox_token_acme_000000000001',
];

/**
 * Fixed secrets of the gateway's and the worker's test configurations (webhook tokens, a cash
 * secret_token, an admin token, the console's password, the metrics token): configured, so
 * audited like the seed's.
 */
export const TEST_SECRETS = {
  coreWebhookToken: 'whk_test_current_Vq3xN8pL2rT6yB1mK9dF4hJ7',
  previousCoreWebhookToken: 'whk_test_previous_Zc5wE0sA8gU3iO6nR2tY9qL',
  cashSecretToken: '5e1f0c2a9b7d4e6f8a1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e1f',
  adminToken: 'adm_test_Hk4pQ8wZ1xC6vB9nM3jL7tR2sD5fG0yU',
  consolePassword: 'console-test-Wd7kP2vN9qX4',
  metricsToken: 'met_test_Rb6yT1nC8vK3mQ5wZ0pL4sH7jD2fG9x',
} as const;

/** Values that must never appear in any output: the seed's and the test configurations'. */
export const ALL_CONFIGURED_SECRETS: readonly string[] = [...CONFIGURED_SECRETS, ...Object.values(TEST_SECRETS)];

/** A JWT (the core service's bearer tokens): three base64url parts, the first a JSON header. */
const JWT = /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/;

const SECRETS_FILE = 'declared-secrets.list';

/**
 * Declares a secret a test obtained at run time (a cash secret_token the sandbox generated, a
 * random webhook token): the audit then searches every output for it too.
 */
export function declareSecret(secret: string): void {
  const dir = process.env[AUDIT_DIR_ENV];
  if (!dir || secret.length < 8) return;
  appendFileSync(path.join(dir, SECRETS_FILE), `${JSON.stringify(secret)}\n`);
}

/** The secrets tests declared during the run. */
export function readDeclaredSecrets(dir: string): string[] {
  try {
    return readFileSync(path.join(dir, SECRETS_FILE), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as string);
  } catch {
    return [];
  }
}

/** Records one piece of output of this worker. */
export function record(kind: string, text: string): void {
  const dir = process.env[AUDIT_DIR_ENV];
  if (!dir) return;
  appendFileSync(path.join(dir, `${process.pid}.jsonl`), `${JSON.stringify({ kind, text })}\n`);
}

/** Text of an error with everything it carries: message, stack, cause chain, own fields. */
export function describeError(error: unknown): string {
  return inspect(error, { depth: 8, showHidden: false, breakLength: Infinity });
}

export interface Finding {
  kind: string;
  secret: string;
  excerpt: string;
}

/** Searches recorded output for secrets; the excerpt masks what it found. */
export function scan(
  lines: { kind: string; text: string }[],
  secrets: readonly string[] = ALL_CONFIGURED_SECRETS,
): Finding[] {
  const findings: Finding[] = [];
  for (const { kind, text } of lines) {
    for (const secret of secrets) {
      const at = text.indexOf(secret);
      if (at >= 0)
        findings.push({
          kind,
          secret: `${secret.slice(0, 4)}…`,
          excerpt: text.slice(Math.max(0, at - 60), at).concat('[SECRET]'),
        });
    }
    const jwt = JWT.exec(text);
    if (jwt)
      findings.push({
        kind,
        secret: 'a JWT bearer token',
        excerpt: text.slice(Math.max(0, jwt.index - 60), jwt.index).concat('[JWT]'),
      });
  }
  return findings;
}

/** Reads everything the workers recorded. */
export function readRecorded(dir: string): { kind: string; text: string }[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.jsonl'))
    .flatMap((file) =>
      readFileSync(path.join(dir, file), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { kind: string; text: string }),
    );
}

/**
 * globalSetup: a fresh audit folder for the run (scanned by the summary reporter), removed after;
 * or the folder a caller set in PAYKIT_SECRET_AUDIT_DIR (the reliability CLI, which reads it after
 * the run and removes it itself).
 */
export default function setup(): () => void {
  if (process.env[AUDIT_DIR_ENV]) return () => {};
  const dir = mkdtempSync(path.join(tmpdir(), 'paykit-secret-audit-'));
  process.env[AUDIT_DIR_ENV] = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
