// The headers every console answer carries, whatever it is (a page, the login form, an export, a
// refusal, a 404), set by @fastify/helmet in its onRequest hook so that no route can forget them.
// The pages are server-rendered with no script and one stylesheet (/console.css): the policy
// allows exactly that, so an injected <script> or inline style would not run, and no other site
// may frame a page (a framed console let one click of a visitor post its forms).
import type { FastifyHelmetOptions } from '@fastify/helmet';

const DIRECTIVES = {
  'default-src': ["'none'"],
  'style-src': ["'self'"],
  'img-src': ["'self'"],
  'form-action': ["'self'"],
  'base-uri': ["'none'"],
  'frame-ancestors': ["'none'"],
};

/** The policy as helmet writes it. */
export const CONTENT_SECURITY_POLICY = Object.entries(DIRECTIVES)
  .map(([name, values]) => `${name} ${values.join(' ')}`)
  .join(';');

/** What every answer carries (helmet adds a few more: HSTS, cross-origin policies). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export const helmetOptions: FastifyHelmetOptions = {
  global: true,
  contentSecurityPolicy: { useDefaults: false, directives: DIRECTIVES },
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
  xContentTypeOptions: true,
};
