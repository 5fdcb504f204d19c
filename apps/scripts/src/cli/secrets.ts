// Secrets come only from the environment or a file, never from a flag (flags end up in shell
// history and `ps`), and every value read is remembered so that output can mask it wherever it
// would appear.
import { readFileSync } from 'node:fs';
import { maskSecret, redactUrl } from '@paykit/runtime';
import * as z from 'zod';
import { UsageError } from './errors.ts';

export const SecretRef = z.union([
  z.strictObject({ env: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name') }),
  z.strictObject({ file: z.string().min(1) }),
]);
export type SecretRef = z.infer<typeof SecretRef>;

const known = new Set<string>();

/** Remembers a secret obtained some other way (a generated webhook token, a sandbox seed key). */
export function rememberSecret(value: string): string {
  if (value.length >= 8) known.add(value);
  return value;
}

export function readSecret(ref: SecretRef, what: string): string {
  let value: string | undefined;
  if ('env' in ref) {
    value = process.env[ref.env];
    if (!value)
      throw new UsageError(
        `${what}: the environment variable ${ref.env} is not set. Export it (never pass secrets as flags).`,
      );
  } else {
    try {
      value = readFileSync(ref.file, 'utf8').trim();
    } catch (error) {
      throw new UsageError(
        `${what}: cannot read ${ref.file} (${(error as NodeJS.ErrnoException).code ?? 'error'}). Point the profile at a readable file holding only the secret.`,
      );
    }
    if (!value) throw new UsageError(`${what}: ${ref.file} is empty.`);
  }
  return rememberSecret(value);
}

/** An http(s) URL with a query string, wherever a text holds one: its secret parameters are redacted (shownUrl). */
const URL_WITH_QUERY = /\bhttps?:\/\/[^\s"'<>]*\?[^\s"'<>]*/gi;

/** A URL's user-info (`user:password@` after `scheme://`), wherever a text holds one. */
const USER_INFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi;

/** The text with every URL's user-info (a credential) taken out: `https://u:p@host/x` → `https://host/x`. */
export function withoutUserInfo(text: string): string {
  return text.replace(USER_INFO, '$1');
}

/**
 * A URL as the CLI prints it: without its user-info, and with secret query parameters redacted
 * (runtime's redactUrl, which re-serialises the URL, so it runs only when there is a query).
 */
export function shownUrl(url: string): string {
  return withoutUserInfo(url.includes('?') ? redactUrl(url) : url);
}

/**
 * Text with every URL's user-info taken out, its secret query parameters redacted, and every secret read so far replaced by its mask
 * ("abcd…wxyz"): every output goes through here, so a URL quoted by an error's own text (fetch
 * refuses a URL with credentials, quoting it) loses its password too.
 */
export function maskKnown(text: string): string {
  let out = withoutUserInfo(text).replace(URL_WITH_QUERY, shownUrl);
  for (const secret of known) if (out.includes(secret)) out = out.split(secret).join(maskSecret(secret));
  return out;
}
