// How many wrong passwords the console lets through, counted in the database so that every
// replica sees the same counts (console_login_failures, migration 0019), on three bounds:
//   per client address: 5 wrong within 15 minutes, and the address is refused until the window ends;
//   per operator: past 5 wrong within 15 minutes, from whatever addresses, each next try waits
//     twice as long as the one before (1 s, 2 s, 4 s … up to 15 minutes) since the last failure;
//   per console: past CONSOLE_LOGIN_FAILURES_PER_MINUTE wrong in the last minute, every login is
//     refused (the right password included) until the minute has passed.
// A browser that logged in before carries a device cookie (login.ts, signed with the console's
// key): its attempts are judged by that device's own failures alone (5 within 15 minutes), never by
// the operator's or the console's, so wrong passwords sent from elsewhere cannot lock out an
// operator's own browser (OWASP's device cookies). IPv6 addresses are counted by their /64, the
// block one host is given, so a host cannot step past the address bound by changing addresses.
// A refusal is answered without looking at the password, so it tells nothing of it. The check and
// the record of a failure are one transaction under one advisory lock: attempts racing on several
// replicas are counted one after the other, never all let through on the same count. Within one
// console they take turns before taking a connection, so a burst never holds the pool's
// connections waiting on the lock (the pages need them); at most MAX_WAITING of them wait at once,
// and one past that is refused at once ("busy"), unless it comes from a device cookie, so a flood
// from many addresses cannot grow the line without bound nor keep an operator's own browser out.
// The times are the console's clock (`now`), so a test can move it.
import type { Database, Queryable } from '@paykit/store';
// The address parser fastify's trustProxy (@fastify/proxy-addr) reads client addresses with.
import ipaddr from 'ipaddr.js';

/** Failed logins one address may make within WINDOW_MS before it is refused until the window ends. */
export const ADDRESS_FAILURES = 5;
/** Failed logins an operator may have within WINDOW_MS before each next try waits. */
export const OPERATOR_FREE_FAILURES = 5;
export const WINDOW_MS = 15 * 60_000;
/** The longest an operator's next try waits. */
export const OPERATOR_MAX_DELAY_MS = 15 * 60_000;
/** The console-wide default of failed logins per minute. */
export const DEFAULT_FAILURES_PER_MINUTE = 60;
/** Login attempts one console process lets wait for their turn at once (device-cookie attempts aside). */
export const MAX_WAITING = 64;
/** The advisory lock every login attempt takes ("payc"), beside the ledger's and the claims'. */
const LOGIN_LOCK = 0x70617963;

export type Refusal =
  | { bound: 'address'; retryAfterSeconds: number }
  | { bound: 'operator'; retryAfterSeconds: number }
  | { bound: 'console'; retryAfterSeconds: number }
  | { bound: 'busy'; retryAfterSeconds: number };

export type Attempt = { outcome: 'success' } | { outcome: 'failure' } | { outcome: 'refused'; refusal: Refusal };

export interface LoginGuardOptions {
  now: () => Date;
  /** Failed logins the whole console accepts per minute before it refuses every login (default 60). */
  failuresPerMinute?: number;
  /** Attempts that may wait for their turn at once (default MAX_WAITING). */
  maxWaiting?: number;
}

const ms = (value: unknown) => (value instanceof Date ? value.getTime() : new Date(String(value)).getTime());

/** The wait before an operator's next try once it has `failures` failures in the window (0 while at most OPERATOR_FREE_FAILURES). */
export function operatorDelayMs(failures: number): number {
  if (failures < OPERATOR_FREE_FAILURES) return 0;
  return Math.min(OPERATOR_MAX_DELAY_MS, 1000 * 2 ** (failures - OPERATOR_FREE_FAILURES));
}

/** The key an address's failures are counted under: an IPv6 address by its /64, an IPv4 one (or an IPv4-mapped one) whole. */
export function addressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${(parsed as ipaddr.IPv6).parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}

export function createLoginGuard(db: Database, options: LoginGuardOptions) {
  const perMinute = options.failuresPerMinute ?? DEFAULT_FAILURES_PER_MINUTE;
  // Attempts take turns in this process before they take a connection: the advisory lock makes
  // them wait anyway, and a burst of logins waiting on it with a connection each would take every
  // connection of the pool from the pages.
  let turn: Promise<unknown> = Promise.resolve();
  let waiting = 0;
  const maxWaiting = options.maxWaiting ?? MAX_WAITING;

  const refusal = async (
    tx: Queryable,
    address: string,
    operator: string,
    at: number,
    trusted: boolean,
  ): Promise<Refusal | null> => {
    const since = new Date(at - WINDOW_MS);
    const { rows } = await tx.query<{
      kind: string;
      n: number;
      first: Date | string | null;
      last: Date | string | null;
    }>(
      `SELECT 'address' AS kind, count(*)::int AS n, min(at) AS first, max(at) AS last
         FROM console_login_failures WHERE address = $1 AND at > $3
       UNION ALL
       SELECT 'operator', count(*)::int, min(at), max(at)
         FROM console_login_failures WHERE operator = $2 AND at > $3
       UNION ALL
       SELECT 'console', count(*)::int, min(at), max(at)
         FROM console_login_failures WHERE at > $4`,
      [address, operator, since, new Date(at - 60_000)],
    );
    const of = (kind: string) => rows.find((r) => r.kind === kind)!;
    const byAddress = of('address');
    if (byAddress.n >= ADDRESS_FAILURES)
      return { bound: 'address', retryAfterSeconds: Math.ceil((ms(byAddress.first) + WINDOW_MS - at) / 1000) };
    if (trusted) return null;
    const byConsole = of('console');
    if (byConsole.n >= perMinute)
      return {
        bound: 'console',
        retryAfterSeconds: Math.max(1, Math.ceil((ms(byConsole.first) + 60_000 - at) / 1000)),
      };
    const byOperator = of('operator');
    const wait = operatorDelayMs(byOperator.n);
    if (wait > 0 && ms(byOperator.last) + wait > at)
      return { bound: 'operator', retryAfterSeconds: Math.ceil((ms(byOperator.last) + wait - at) / 1000) };
    return null;
  };

  return {
    /**
     * One login attempt from `client` as `operator`: refused on a bound (the password is not looked
     * at), else `passwordRight()` decides (a named operator's scrypt check, under the lock: logins are
     * checked one at a time, which bounds the CPU a flood can take), and a failure is recorded; a success clears the
     * client's and the operator's failures. A client with `device` (the id of a valid device
     * cookie) is counted by that device, not by its address, and only on that bound.
     */
    attempt(
      client: { address: string; device?: string | undefined },
      operator: string,
      passwordRight: () => boolean | Promise<boolean>,
    ): Promise<Attempt> {
      if (client.device === undefined && waiting >= maxWaiting)
        return Promise.resolve({ outcome: 'refused', refusal: { bound: 'busy', retryAfterSeconds: 1 } });
      const address = client.device === undefined ? addressKey(client.address) : `device:${client.device}`;
      waiting += 1;
      const attempt = turn.then(() =>
        db.transaction(async (tx): Promise<Attempt> => {
          await tx.query('SELECT pg_advisory_xact_lock($1)', [LOGIN_LOCK]);
          const at = options.now().getTime();
          await tx.query('DELETE FROM console_login_failures WHERE at <= $1', [new Date(at - WINDOW_MS)]);
          const refused = await refusal(tx, address, operator, at, client.device !== undefined);
          if (refused) return { outcome: 'refused', refusal: refused };
          if (await passwordRight()) {
            await tx.query('DELETE FROM console_login_failures WHERE address = $1 OR operator = $2', [
              address,
              operator,
            ]);
            return { outcome: 'success' };
          }
          await tx.query('INSERT INTO console_login_failures (at, address, operator) VALUES ($1, $2, $3)', [
            new Date(at),
            address,
            operator,
          ]);
          return { outcome: 'failure' };
        }),
      );
      turn = attempt.catch(() => undefined).finally(() => (waiting -= 1));
      return attempt;
    },
  };
}

export type LoginGuard = ReturnType<typeof createLoginGuard>;
