// What the platform's error bodies say: core's gRPC-style `code` and `details[]`, direct debit's
// 422 `detail[]`, and the words and code a message quotes from either (or from a plain
// `message`/`error` body). Read defensively: a body is whatever the server sent.
import type { CoreErrorDetail, ValidationErrorDetail } from '../core/errors.ts';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A core error body's `code` and `details[]`, each detail's fields as strings; undefined for any other body. */
export function asCoreError(body: unknown): { code: number; details: CoreErrorDetail[] } | undefined {
  if (!isRecord(body) || typeof body.code !== 'number' || !Array.isArray(body.details)) return undefined;
  const details: CoreErrorDetail[] = [];
  for (const item of body.details) {
    if (!isRecord(item)) continue;
    details.push({
      ...item,
      reason: typeof item.reason === 'string' ? item.reason : String(item.reason),
      domain: typeof item.domain === 'string' ? item.domain : String(item.domain),
      metadata: isRecord(item.metadata) ? (item.metadata as CoreErrorDetail['metadata']) : {},
    });
  }
  return { code: body.code, details };
}

/** A direct debit 422 body's `detail[]`, each item's `loc`, `msg` and `type` typed; undefined for any other body. */
export function asValidationDetail(body: unknown): ValidationErrorDetail[] | undefined {
  if (!isRecord(body) || !Array.isArray(body.detail)) return undefined;
  const out: ValidationErrorDetail[] = [];
  for (const item of body.detail) {
    if (!isRecord(item)) continue;
    out.push({
      ...item,
      loc: Array.isArray(item.loc)
        ? item.loc.filter((l): l is string | number => typeof l === 'string' || typeof l === 'number')
        : [],
      msg: typeof item.msg === 'string' ? item.msg : '',
      type: typeof item.type === 'string' ? item.type : '',
    });
  }
  return out;
}

/**
 * The server's own words: core `details[].metadata.error_detail` (its `message` is a generic
 * "API Error"), direct debit `detail[].msg`, or `message`/`error`/`reason`/`detail` strings.
 */
export function serverText(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const core = asCoreError(body);
  if (core) {
    const words = core.details
      .map((d) => (typeof d.metadata.error_detail === 'string' ? d.metadata.error_detail.trim() : ''))
      .filter((w) => w !== '');
    if (words.length > 0) return [...new Set(words)].join('; ');
  }
  const validation = asValidationDetail(body);
  if (validation && validation.length > 0) {
    const shown = validation.slice(0, 3).map((d) => (d.loc.length > 0 ? `${d.loc.join('.')}: ${d.msg}` : d.msg));
    const more = validation.length > 3 ? ` (+${validation.length - 3} more)` : '';
    return shown.join('; ') + more;
  }
  for (const key of ['message', 'error', 'reason', 'detail', 'error_description'] as const) {
    const value = body[key];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return undefined;
}

/** A machine-readable code for the message: core details[0].reason, or an UPPER_SNAKE `code`/`error`. */
export function errorToken(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const core = asCoreError(body);
  const first = core?.details[0];
  const reason = first?.reason;
  if (reason && /^[A-Za-z][A-Za-z0-9_]{1,63}$/.test(reason)) {
    const domain = first?.domain;
    return domain && /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(domain) ? `${reason} (domain ${domain})` : reason;
  }
  for (const key of ['code', 'error_code'] as const) {
    const value = body[key];
    if (typeof value === 'string' && /^[A-Z][A-Z0-9_]{1,63}$/.test(value)) return value;
  }
  return undefined;
}
