// A failure kept as an error's `cause` without what it may carry: a library's error can hold the
// request (headers, body) or quote a credential in its message.
import { scrubSecrets } from '../core/redact.ts';
import { truncate } from './truncate.ts';

/** An Error safe to keep as a `cause`: name, message (scrubbed) and a `code` (ECONNREFUSED…), nothing else. */
export function sanitizeCause(error: unknown, secrets: readonly string[] = []): Error {
  const parts: string[] = [];
  let code: string | undefined;
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
    if (current instanceof Error) {
      parts.push(`${current.name}: ${current.message}`);
      const c = (current as { code?: unknown }).code;
      if (code === undefined && typeof c === 'string') code = c;
      current = current.cause;
    } else {
      if (typeof current === 'string') parts.push(current);
      break;
    }
  }
  const text = (parts.join(' ← ') || 'unknown failure')
    // undici quotes the offending value ("<value>" is an invalid header value): it may be a credential.
    .replace(/"[^"]*" is an invalid header (value|name)/g, '"[redacted]" is an invalid header $1');
  const sanitized = new Error(truncate(scrubSecrets(text, secrets), 500));
  sanitized.name = 'SanitizedCause';
  if (code !== undefined) Object.assign(sanitized, { code });
  return sanitized;
}
