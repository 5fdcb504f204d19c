// Every form the console serves is checked twice before its route runs: the same origin, by the
// browser's own word (Sec-Fetch-Site, Origin: no plugin checks them), then the form's CSRF token
// (@fastify/csrf-protection).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AccessDenied } from './answers.ts';

/** Same origin by the browser's own word (Sec-Fetch-Site, Origin); a client that sends neither must still carry the token. */
export function checkOrigin(request: FastifyRequest): void {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin')
    throw new AccessDenied(
      403,
      `Refused: this form was sent from another site (Sec-Fetch-Site: ${String(site).slice(0, 20)}). Use the console's own pages.`,
    );
  const origin = request.headers.origin;
  // Under Referrer-Policy: no-referrer a browser's own same-origin form carries "Origin: null";
  // its Sec-Fetch-Site, which no page can set, still says where the form came from.
  if (origin === undefined || (origin === 'null' && site === 'same-origin')) return;
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  // The Host sent, and fastify's host: X-Forwarded-Host only from a proxy in CONSOLE_TRUSTED_PROXIES.
  const own = [request.headers.host, request.host].filter((h): h is string => typeof h === 'string');
  if (host === undefined || !own.includes(host))
    throw new AccessDenied(
      403,
      `Refused: this form was sent from another origin (${origin.slice(0, 80)}). Use the console's own pages.`,
    );
}

/** Every form of `context`: the same origin, then its CSRF token (the body is parsed by now). */
export function checkForms(context: FastifyInstance): void {
  context.addHook('preHandler', (request, reply, done) => {
    if (request.method !== 'POST') return done();
    try {
      checkOrigin(request);
    } catch (error) {
      return done(error as Error);
    }
    context.csrfProtection(request, reply, done);
  });
}
