// The gateway's error answers: a short JSON body, `error` a stable code and `message` what was
// wrong and what to do. Never a secret, never the body that was sent.
import { describeValidationIssues } from '@paykit/contracts';
import type { RequestValidationError } from '@ts-rest/fastify';
export type ProblemCode =
  | 'unauthorized'
  | 'forbidden'
  | 'admin_disabled'
  | 'invalid_json'
  | 'invalid_utf8'
  | 'not_an_event'
  | 'wrong_event'
  | 'unstorable'
  | 'body_too_large'
  | 'unsupported_media_type'
  | 'bad_request'
  | 'not_found'
  | 'store_unavailable'
  | 'internal_error';

export function problem(error: ProblemCode, message: string): { error: ProblemCode; message: string } {
  return { error, message };
}

/** A request path fit to quote back: no query string, bounded, printable. */
export function path(url: string): string {
  const bare = url.split('?')[0] ?? '';
  return bare.replace(/[^\x20-\x7e]/g, '?').slice(0, 100);
}

/**
 * What a request that failed its contract (query, path, headers or body) got wrong, in one line:
 * each issue's place and zod's message, which names the expected type, never the value sent.
 */
export function validationMessage(error: RequestValidationError): string {
  return `The request does not match the route: ${describeValidationIssues(error).join('; ').slice(0, 300) || 'invalid input'}. See apps/webhook-gateway/README.md for the route.`;
}
