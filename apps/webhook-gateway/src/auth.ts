// Who may deliver. Core: `Authorization: Bearer <token>` compared in constant time with the tokens
// configured for the route's event type (two during a rotation), or nothing for a type registered
// NO_AUTH. Cash: X-Webhook-Signature, the HMAC of the raw bytes under the webhook's secret_token,
// with a timestamp tolerance. Both comparisons are the runtime's (constantTimeEqual underneath);
// no message here carries a token, a secret or an expected signature.
import type { CoreEventType } from '@paykit/contracts';
import { verifyCashWebhook } from '@paykit/cash-client';
import { WebhookVerificationError, createCoreWebhookVerifier, type HeaderSource } from '@paykit/runtime';
import type { CoreAuthConfig, GatewayConfig } from './config.ts';

export type AuthResult = { ok: true; by: string } | { ok: false; message: string };

const CREDENTIAL_HEADERS = new Set(['authorization', 'x-webhook-signature', 'x-webhook-timestamp']);

/**
 * The credential headers as the client sent them, every occurrence kept. node:http keeps only the
 * first Authorization of a request (and joins repeated X-Webhook-* values with ", "), so a request
 * carrying two different credentials would be judged by whichever came first; the runtime's
 * verifiers refuse a header repeated with different values, but only if they see every value.
 */
export function credentialHeaders(rawHeaders: readonly string[]): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (CREDENTIAL_HEADERS.has(name)) (found[name] ??= []).push(rawHeaders[i + 1]!);
  }
  return found;
}

/** The check of one core event type's deliveries, its tokens digested once at start-up. */
export function coreAuthenticator(type: CoreEventType, config: CoreAuthConfig): (headers: HeaderSource) => AuthResult {
  if (config.noAuth) return () => ({ ok: true, by: 'no auth (NO_AUTH)' });
  if (config.tokens.length === 0) {
    const refusal: AuthResult = {
      ok: false,
      message: `This gateway takes no ${type} deliveries: no token is configured for the type (GATEWAY_CORE_TOKENS_${type}).`,
    };
    return () => refusal;
  }
  const verify = createCoreWebhookVerifier(config.tokens);
  return (headers) => {
    try {
      return { ok: true, by: `bearer token ${verify(headers) + 1} of ${config.tokens.length}` };
    } catch (error) {
      if (error instanceof WebhookVerificationError)
        return { ok: false, message: `Not authenticated: ${error.message}.` };
      throw error;
    }
  };
}

/** Before the body is read: the two cash headers must be there (else 401 without reading further). */
export function cashHeadersPresent(
  headers: Record<string, string | string[] | undefined>,
  config: GatewayConfig['cash'],
): string | undefined {
  if (config.secretTokens.length === 0)
    return 'This gateway takes no cash deliveries: no secret_token is configured (GATEWAY_CASH_SECRET_TOKENS).';
  for (const name of ['x-webhook-signature', 'x-webhook-timestamp']) {
    if (headers[name] === undefined || headers[name] === '')
      return `Not authenticated: the ${name} header is missing; cash deliveries are signed by the platform.`;
  }
  return undefined;
}

/** The signature over the raw bytes, under each configured secret (a new webhook brings a new one). */
export function verifyCash(
  raw: Uint8Array,
  headers: HeaderSource,
  config: GatewayConfig['cash'],
  now: Date,
): AuthResult {
  let last: WebhookVerificationError | undefined;
  for (const [index, secret] of config.secretTokens.entries()) {
    try {
      verifyCashWebhook(raw, headers, secret, { toleranceSeconds: config.toleranceSeconds, now });
      return { ok: true, by: `cash secret ${index + 1} of ${config.secretTokens.length}` };
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      last = error;
      // Only a mismatch can depend on the secret; a missing, malformed or stale header fails under all.
      if (error.reason !== 'mismatch') break;
    }
  }
  return { ok: false, message: `Not authenticated: ${last?.message ?? 'no cash secret configured'}.` };
}
