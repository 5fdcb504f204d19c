// The headers every console response carries, whatever it is (a page, the login form, an export,
// a refusal, a 404), set once where a request is first handled so that no route can forget them.
// The pages are server-rendered with no script and one stylesheet (/console.css): the policy
// allows exactly that, so an injected <script> or inline style would not run, and no other site
// may frame a page (a framed console let one click of a visitor post its forms).
import type { ServerResponse } from 'node:http';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export function setSecurityHeaders(res: ServerResponse): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
}
