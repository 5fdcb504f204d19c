// The console as the HTTP tests run it: port 0 on 127.0.0.1 (no password: this machine only), a
// day's staleness and the clock at 2026-11-21 18:00 UTC unless a test says otherwise; `get` reads
// a page or an export whole.
import type { Database } from '@paykit/store';
import { startConsole, type ConsoleOptions, type ConsoleServer } from '../src/index.ts';

export interface TestConsole extends ConsoleServer {
  /** Reads `path` whole; `cookies` is what it set, as a Cookie header sends it back. */
  get(path: string): Promise<{ status: number; type: string | null; text: string; cookies: string }>;
}

export async function startTestConsole(db: Database, options: Partial<ConsoleOptions> = {}): Promise<TestConsole> {
  const server = await startConsole({
    db,
    port: 0,
    host: '127.0.0.1',
    staleAfterSeconds: 86_400,
    now: () => new Date('2026-11-21T18:00:00Z'),
    ...options,
  });
  return {
    ...server,
    get: async (path) => {
      const response = await fetch(new URL(path, server.url));
      const cookies = response.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      return {
        status: response.status,
        type: response.headers.get('content-type'),
        // Each cell's column name (src/pages/html.ts `table`: a phone's cards) is presentation, checked in
        // chromium; the HTTP tests read the cells without it.
        text: (await response.text()).replace(/ data-label="[^"]*"/g, ''),
        cookies,
      };
    },
  };
}

/**
 * Logs in on the console at `url` as a browser would: the login form's token and cookie, then the
 * POST. The answer (303 with a `paykit_console` cookie when right).
 */
export async function logIn(url: string, operator: string, password: string, next = '/parked'): Promise<Response> {
  const page = await fetch(`${url}/login`);
  const html = await page.text();
  return fetch(`${url}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'sec-fetch-site': 'same-origin',
      cookie: cookieOf(page, 'paykit_console_csrf')!,
    },
    body: new URLSearchParams({ csrf: csrfOf(html)!, operator, password, next }).toString(),
  });
}

/** The CSRF token of the first form of a page. */
export const csrfOf = (html: string): string | undefined => /name="csrf" value="([^"]+)"/.exec(html)?.[1];

/** The cookie `name` an answer set, as a Cookie header sends it back (`name=value`). */
export const cookieOf = (response: Response, name: string): string | undefined =>
  response.headers
    .getSetCookie()
    .find((c) => c.startsWith(`${name}=`))
    ?.split(';')[0];
