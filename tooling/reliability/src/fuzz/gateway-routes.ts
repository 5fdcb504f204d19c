// The gateway's routes as a fuzz scenario reaches them: the event routes, the probes, the admin
// API (with odd queries, seqs and encodings) and paths or methods that match nothing.
import fc from 'fast-check';
import { CASH_WEBHOOK_PATH, CORE_EVENT_PATHS, type CoreEventType } from '@paykit/contracts';
import { headerValue } from './headers.ts';

export type GatewayRoute =
  | { kind: 'core'; type: CoreEventType; method: 'POST'; path: string; noAuth: boolean }
  | { kind: 'cash'; method: 'POST'; path: string }
  | { kind: 'probe'; method: 'GET' | 'HEAD'; path: '/healthz' | '/readyz' | '/metrics' }
  | { kind: 'admin'; op: 'list' | 'get' | 'replay'; method: 'GET' | 'POST' }
  | { kind: 'unknown'; method: string; path: string };

export function gatewayRoutes(noAuthTypes: readonly CoreEventType[]): GatewayRoute[] {
  const core = (Object.keys(CORE_EVENT_PATHS) as CoreEventType[]).map(
    (type): GatewayRoute => ({
      kind: 'core',
      type,
      method: 'POST',
      path: CORE_EVENT_PATHS[type],
      noAuth: noAuthTypes.includes(type),
    }),
  );
  return [
    ...core,
    { kind: 'cash', method: 'POST', path: CASH_WEBHOOK_PATH },
    ...(['/healthz', '/readyz', '/metrics'] as const).flatMap((path): GatewayRoute[] => [
      { kind: 'probe', method: 'GET', path },
      { kind: 'probe', method: 'HEAD', path },
    ]),
    { kind: 'admin', op: 'list', method: 'GET' },
    { kind: 'admin', op: 'get', method: 'GET' },
    { kind: 'admin', op: 'replay', method: 'POST' },
    // Unknown paths, known paths with other methods, and encodings of known paths that match nothing.
    { kind: 'unknown', method: 'POST', path: '/webhooks/core/payout' },
    { kind: 'unknown', method: 'GET', path: CORE_EVENT_PATHS.MONEY_IN },
    { kind: 'unknown', method: 'PUT', path: CASH_WEBHOOK_PATH },
    { kind: 'unknown', method: 'DELETE', path: '/admin/events/1' },
    { kind: 'unknown', method: 'POST', path: '/healthz' },
    { kind: 'unknown', method: 'OPTIONS', path: '/webhooks/core/report' },
    { kind: 'unknown', method: 'PATCH', path: '/' },
    { kind: 'unknown', method: 'POST', path: '/webhooks/core/money-in/' },
    { kind: 'unknown', method: 'POST', path: '/webhooks%2Fcash' },
    { kind: 'unknown', method: 'GET', path: '/admin' },
    { kind: 'unknown', method: 'GET', path: `/${'a'.repeat(3000)}` },
  ];
}

export const routeName = (route: GatewayRoute): string =>
  route.kind === 'admin'
    ? `${route.method} admin ${route.op}`
    : `${route.method} ${route.path.length > 48 ? `${route.path.slice(0, 40)}…(${route.path.length} chars)` : route.path}`;
/** Admin API targets: queries and seqs a client may send, odd ones included. */
const adminQuery: fc.Arbitrary<string> = fc
  .array(
    fc.tuple(
      fc.constantFrom('source', 'eventType', 'outcome', 'before', 'limit', 'x', 'limit[]', '__proto__'),
      fc.oneof(
        fc.constantFrom(
          'core',
          'cash',
          'MONEY_IN',
          'accepted',
          '1',
          '0',
          '-1',
          '1000',
          '1001',
          '99999999999999999999999',
          '%00',
          '%zz',
          '',
          'NaN',
          '1e3',
          '%E2%82%AC',
        ),
        fc.nat().map(String),
        headerValue.map(encodeURIComponent),
      ),
    ),
    { maxLength: 4 },
  )
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([key, value]) => `${key}=${value}`).join('&')}`));

export const adminSeq: fc.Arbitrary<string> = fc.oneof(
  fc.nat({ max: 50 }).map(String),
  fc.constantFrom(
    '0',
    '-1',
    '1.5',
    '9223372036854775807',
    '9223372036854775808',
    '99999999999999999999999',
    '%00',
    'abc',
    '%2e%2e',
    '1%20',
    '0x10',
  ),
);

/** `/admin/events` as sent: plainly, or percent-encoded in ways the router decodes to the same route. */
const adminEvents = fc.constantFrom('/admin/events', '/%61dmin/events', '/admin/%65vents', '/adm%69n/ev%65nts');

/** The path of an admin request: the list with a query, or one event (and its replay) by seq. */
export function adminPath(op: 'list' | 'get' | 'replay'): fc.Arbitrary<string> {
  if (op === 'list') return fc.tuple(adminEvents, adminQuery).map(([events, query]) => `${events}${query}`);
  return fc.tuple(adminEvents, adminSeq).map(([events, seq]) => `${events}/${seq}${op === 'replay' ? '/replay' : ''}`);
}
