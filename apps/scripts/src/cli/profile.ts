// Profiles: which environment, where each product is and where its secrets come from. Read from a
// JSON config file (--config, PAYKIT_CONFIG, ./paykit.config.json or ~/.config/paykit/config.json)
// and validated with zod; with no file, the built-in `sandbox` profile talks to a local sandbox
// (PAYKIT_SANDBOX_URL, default http://127.0.0.1:4010), whose control API hands out its keys.
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as z from 'zod';
import { UsageError } from './errors.ts';
import { SecretRef } from './secrets.ts';

const Url = z.url({ message: 'a URL such as https://api.example.com' });
const Product = z.strictObject({ baseUrl: Url.optional() });

export const Profile = z.strictObject({
  environment: z.enum(['sandbox', 'staging', 'production']),
  /** sandbox: the sandbox's root URL; its seed supplies every key and token. */
  sandboxUrl: Url.optional(),
  core: Product.extend({
    clientId: z.uuid().optional(),
    apiKey: SecretRef.optional(),
    clientSecret: SecretRef.optional(),
  }).optional(),
  directDebit: Product.extend({ apiKey: SecretRef.optional() }).optional(),
  cash: Product.extend({ apiKey: SecretRef.optional(), apiSecret: SecretRef.optional() }).optional(),
  remittance: Product.optional(),
  billpay: Product.extend({ token: SecretRef.optional() }).optional(),
  giftCards: Product.extend({ token: SecretRef.optional() }).optional(),
  lottery: Product.extend({ token: SecretRef.optional() }).optional(),
  /** The store (reconcile, receivables, reports): a PostgreSQL URL from the environment or a file; without it, PGlite under PAYKIT_DATA_DIR. */
  database: z.strictObject({ url: SecretRef }).optional(),
  /** The webhook gateway (events list|show|replay go through its admin API). */
  gateway: z.strictObject({ url: Url, adminToken: SecretRef.optional() }).optional(),
});
export type Profile = z.infer<typeof Profile>;

const Config = z.strictObject({ profiles: z.record(z.string().regex(/^[\w-]+$/), Profile) });

export interface LoadedProfile {
  name: string;
  profile: Profile;
  /** Where it came from, for messages. */
  source: string;
}

export function builtInSandbox(): Profile {
  return {
    environment: 'sandbox',
    sandboxUrl: process.env.PAYKIT_SANDBOX_URL ?? 'http://127.0.0.1:4010',
    gateway: {
      url: process.env.PAYKIT_GATEWAY_URL ?? 'http://127.0.0.1:4020',
      adminToken: { env: 'GATEWAY_ADMIN_TOKEN' },
    },
  };
}

function configPath(explicit: string | undefined): string | undefined {
  if (explicit) return explicit;
  if (process.env.PAYKIT_CONFIG) return process.env.PAYKIT_CONFIG;
  for (const candidate of [
    path.resolve('paykit.config.json'),
    path.join(os.homedir(), '.config', 'paykit', 'config.json'),
  ]) {
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

export function loadProfile(name: string | undefined, explicitConfig: string | undefined): LoadedProfile {
  const wanted = name ?? process.env.PAYKIT_PROFILE ?? 'sandbox';
  const file = configPath(explicitConfig);
  if (!file) {
    if (wanted === 'sandbox') return { name: wanted, profile: builtInSandbox(), source: 'built-in' };
    throw new UsageError(
      `No config file defines profile "${wanted}". Create paykit.config.json (or ~/.config/paykit/config.json, or pass --config); see apps/scripts/README.md.`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch (error) {
    throw new UsageError(`Cannot read the config ${file}: ${(error as Error).message.slice(0, 120)}`);
  }
  const parsed = Config.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `  - ${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('\n');
    throw new UsageError(`The config ${file} is not valid:\n${problems}`);
  }
  const profile = parsed.data.profiles[wanted] ?? (wanted === 'sandbox' ? builtInSandbox() : undefined);
  if (!profile)
    throw new UsageError(
      `Profile "${wanted}" is not in ${file} (it has: ${Object.keys(parsed.data.profiles).join(', ') || 'none'}).`,
    );
  return { name: wanted, profile, source: file };
}
