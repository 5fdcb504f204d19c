// DATABASE_URL is read once, here: checked before pg sees it (pg's own parser throws errors that
// quote the whole string, password included) and turned into a description that is safe to print.
import { StoreConfigError } from './errors.ts';

export interface ParsedDatabaseUrl {
  /** Handed to pg as is: it understands every query parameter (sslmode, host=/socket/dir, …). */
  connectionString: string;
  /** "PostgreSQL postgres@127.0.0.1:5432/paykit": no password, ever. */
  description: string;
}

const EXAMPLE = 'postgres://user:password@127.0.0.1:5432/paykit';

/** Checks the shape of a postgres:// URL; a StoreConfigError names what is wrong without repeating the URL. */
export function parseDatabaseUrl(databaseUrl: string): ParsedDatabaseUrl {
  if (typeof databaseUrl !== 'string' || databaseUrl.trim() === '') {
    throw new StoreConfigError(
      `DATABASE_URL is empty: set it to a PostgreSQL URL such as ${EXAMPLE}, or unset it to use the embedded PGlite database`,
    );
  }
  if (databaseUrl !== databaseUrl.trim()) {
    throw new StoreConfigError(
      'DATABASE_URL starts or ends with whitespace: remove it (a stray newline from a .env file is the usual cause)',
    );
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(databaseUrl)?.[1]?.toLowerCase();
  if (scheme !== 'postgres' && scheme !== 'postgresql') {
    const seen = scheme === undefined ? 'no scheme' : `"${scheme}:"`;
    throw new StoreConfigError(
      `DATABASE_URL must start with postgres:// or postgresql://, it has ${seen}: for example ${EXAMPLE}`,
    );
  }
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    // The TypeError from URL carries the input (password included): it is deliberately dropped.
    throw new StoreConfigError(`DATABASE_URL is not a valid URL: ${diagnose(databaseUrl)}; expected ${EXAMPLE}`);
  }
  const socketHost = url.searchParams.get('host');
  if (url.hostname === '' && !socketHost) {
    throw new StoreConfigError(
      `DATABASE_URL names no host: expected ${EXAMPLE} (or ?host=/path/to/socket/dir for a Unix socket)`,
    );
  }
  let user: string;
  let database: string;
  try {
    user = decodeURIComponent(url.username);
    database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  } catch {
    throw new StoreConfigError(
      'DATABASE_URL has a broken percent-encoding (a % not followed by two hex digits) in its user name or database name: fix the encoding',
    );
  }
  if (database.includes('/')) {
    throw new StoreConfigError(
      `DATABASE_URL's path must be just the database name (postgres://…/paykit), but it has more than one segment`,
    );
  }
  const host = url.hostname === '' ? socketHost : `${url.hostname}:${url.port === '' ? '5432' : url.port}`;
  const where = `${user === '' ? '' : `${user}@`}${host}/${database === '' ? '(default database)' : database}`;
  return { connectionString: databaseUrl, description: `PostgreSQL ${where}` };
}

/** What URL refused, said without quoting any of it. */
function diagnose(databaseUrl: string): string {
  const authority = /^[^:]+:\/\/([^/?#]*)/.exec(databaseUrl)?.[1];
  if (authority === undefined) return 'it lacks the // before the host';
  const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
  if (hostPort === '' || hostPort.startsWith(':')) return 'it names no host';
  const port = /:(\d*)$/.exec(hostPort)?.[1];
  if (port !== undefined && (port === '' || Number(port) > 65535)) return 'its port must be a number from 1 to 65535';
  return 'characters such as @ : / ? # in the user name or password must be percent-encoded (@ is %40, : is %3A)';
}
