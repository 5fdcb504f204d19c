// 5. Hostile input. Property-based fuzzing (fast-check, a fixed seed, a bounded number of runs)
// of every gateway route and every sandbox route over raw sockets: random JSON, a valid event
// with one field of the wrong type or missing, huge strings and arrays, deep nesting, invalid
// UTF-8, not JSON, empty and oversize bodies, every kind of content type, right, wrong, missing
// and repeated credentials, huge headers and control bytes. Every answer must be the documented
// one (the gateway's exact status and error code; the sandbox's 2xx or 4xx in its product's
// error shape), never a 5xx, never a hang. Then slow clients (slowloris) against the gateway while
// it takes deliveries, the gateway's memory before and after, and the store: every delivery
// acknowledged with a seq is stored.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORE_EVENT_PATHS } from '@paykit/contracts';
import { TEST_SECRETS, declareSecret, record } from '@paykit/testing/secret-audit';
import { BODY_FAMILIES, bodyOf, type BodyFamily, type FuzzBody } from '../src/fuzz/bodies.ts';
import { cashEvent, coreEvent } from '../src/fuzz/events.ts';
import { gatewayExpected } from '../src/fuzz/gateway-expected.ts';
import { adminPath, gatewayRoutes, routeName, type GatewayRoute } from '../src/fuzz/gateway-routes.ts';
import {
  BEARER_VARIANTS,
  CASH_VARIANTS,
  bearerCredentials,
  cashCredentials,
  contentTypes,
  credentialVariant,
  extraHeaders,
  type ContentTypeCase,
  type Credentials,
  type ExtraHeaders,
} from '../src/fuzz/headers.ts';
import {
  SANDBOX_4XX,
  sandboxAuthHeaders,
  sandboxErrorShape,
  sandboxRoutes,
  type SandboxCredentials,
  type SandboxRoute,
} from '../src/fuzz/sandbox.ts';
import {
  NoAnswerError,
  isAlive,
  residentKb,
  sendRaw,
  startSlowClient,
  type RawAnswer,
  type RawHeader,
  type RawRequest,
} from '../src/http.ts';
import { sleep } from '../src/load.ts';
import { recordScenario } from '../src/report.ts';
import { scaled } from '../src/scale.ts';
import { startStack, type Stack } from '../src/stack.ts';

const SEED = 20_261_121;
const BODY_LIMIT = 1024 * 1024;
const TOLERANCE_SECONDS = 300;
/** Short on purpose, so the slow clients are closed within the scenario's time. */
const HEADERS_TIMEOUT_MS = 2_000;
const REQUEST_TIMEOUT_MS = 4_000;
const COMMIT_BUDGET_MS = 4_000;
/** No answer within this is a hang (the gateway's own budget is 4 s). */
const ANSWER_TIMEOUT_MS = 10_000;
const SLOW_CLIENTS = 50;
/** Runs per route and body family: the large families less, they cost a megabyte each. */
const RUNS: Record<BodyFamily, number> = {
  valid: scaled(10, 4),
  'random-json': scaled(12, 4),
  'random-object': scaled(12, 4),
  'wrong-type': scaled(40, 10),
  'missing-field': scaled(10, 4),
  'huge-string': scaled(4, 2),
  'huge-array': scaled(4, 2),
  deep: scaled(10, 4),
  'invalid-utf8': scaled(10, 4),
  'not-json': scaled(10, 4),
  empty: scaled(2, 1),
  oversize: scaled(3, 1),
};
/**
 * Memory: the gateway fuzz runs PASSES times with the same seed. The first pass takes the
 * gateway's resident memory to its high-water mark (V8 grows its heap for megabyte bodies parsed
 * into hundreds of thousands of objects and keeps it; PGlite, the store in the same process without
 * DATABASE_URL, grows its WebAssembly heap and never shrinks it): measured 100-260 MB, bounded
 * here by FIRST_PASS_LIMIT_KB. The repeats must then add less than STEADY_GROWTH_LIMIT_KB in all
 * (measured: -20 to +70 MB, GC timing): a leak of each body (1 MiB at most, some 120 MB a pass
 * reduced, twice that over the repeats) or of anything per request at that scale would exceed it.
 */
const PASSES = 3;
const FIRST_PASS_LIMIT_KB = 512 * 1024;
const STEADY_GROWTH_LIMIT_KB = 128 * 1024;
const mb = (kb: number) => Math.round(kb / 1024);

/** What one request got, for the figures and the failures. */
interface Tally {
  requests: number;
  acknowledged: number;
  fiveXx: number;
  longestAnswerMs: number;
  statuses: Map<number, number>;
  failures: string[];
}

const tally = (): Tally => ({
  requests: 0,
  acknowledged: 0,
  fiveXx: 0,
  longestAnswerMs: 0,
  statuses: new Map(),
  failures: [],
});

/**
 * Sends one request and counts its answer; a failure is described without headers (they carry
 * credentials). Answers `audited` selects go to the secret audit: none may carry a secret.
 */
async function exchange(
  t: Tally,
  port: number,
  request: RawRequest,
  label: string,
  audited: (answer: RawAnswer) => boolean = () => true,
): Promise<RawAnswer | undefined> {
  t.requests++;
  try {
    const answer = await sendRaw(port, request, ANSWER_TIMEOUT_MS);
    if (audited(answer))
      record(`answer to ${label}`, `${answer.status} ${answer.body.toString('utf8').slice(0, 4096)}`);
    t.longestAnswerMs = Math.max(t.longestAnswerMs, answer.ms);
    t.statuses.set(answer.status, (t.statuses.get(answer.status) ?? 0) + 1);
    if (answer.status >= 500) t.fiveXx++;
    if (answer.status >= 200 && answer.status < 300) t.acknowledged++;
    return answer;
  } catch (error) {
    if (!(error instanceof NoAnswerError)) throw error;
    t.longestAnswerMs = Math.max(t.longestAnswerMs, error.ms);
    t.failures.push(`${label}: ${error.message}`);
    return undefined;
  }
}

const statusList = (t: Tally) =>
  [...t.statuses.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}×${n}`)
    .join(', ');

const contentTypeHeaders = (ct: ContentTypeCase): RawHeader[] =>
  ct.values.map((value): RawHeader => ['Content-Type', value]);

interface GatewayCase {
  route: GatewayRoute;
  body: FuzzBody;
  contentType: ContentTypeCase;
  /** A credential variant's name: the headers are built when sending, so no counterexample carries a secret. */
  variant: string;
  extra: ExtraHeaders;
  /** The path sent (for the admin API: encoded or not, with a query or a seq). */
  target: string;
}

/** The valid event a route's bodies are built around. */
function baseEvent(route: GatewayRoute) {
  if (route.kind === 'core') return coreEvent(route.type);
  if (route.kind === 'cash') return cashEvent;
  return coreEvent('STATUS_UPDATE');
}

function gatewayCase(route: GatewayRoute, family: BodyFamily): fc.Arbitrary<GatewayCase> {
  const variant: fc.Arbitrary<string> =
    route.kind === 'cash' ? credentialVariant('signed', CASH_VARIANTS) : credentialVariant('valid', BEARER_VARIANTS);
  const target = route.kind === 'admin' ? adminPath(route.op) : fc.constant(route.path);
  return fc.record({
    route: fc.constant(route),
    body: bodyOf(family, baseEvent(route), BODY_LIMIT),
    contentType: contentTypes,
    variant,
    extra: extraHeaders,
    target,
  });
}

function credentialsFor(c: GatewayCase): Credentials {
  if (c.route.kind === 'cash') {
    return cashCredentials(c.variant as (typeof CASH_VARIANTS)[number], c.body.bytes, {
      secret: TEST_SECRETS.cashSecretToken,
      nowSeconds: Math.floor(Date.now() / 1000),
      toleranceSeconds: TOLERANCE_SECONDS,
    });
  }
  const token = c.route.kind === 'admin' ? TEST_SECRETS.adminToken : TEST_SECRETS.coreWebhookToken;
  return bearerCredentials(c.variant as (typeof BEARER_VARIANTS)[number], token, TEST_SECRETS.previousCoreWebhookToken);
}

/** What is wrong with an answer, or undefined when it is the documented one. */
function judgeGateway(c: GatewayCase, credentials: Credentials, answer: RawAnswer): string | undefined {
  const allowed = gatewayExpected({
    route: c.route,
    credentials,
    contentType: c.contentType,
    body: c.body.bytes,
    extra: c.extra,
    bodyLimit: BODY_LIMIT,
  });
  const code = (answer.json as { error?: unknown } | undefined)?.error;
  const match = allowed.some((a) => a.status === answer.status && (a.error === undefined || a.error === code));
  const label = `${routeName(c.route)} [${c.body.family}, ${c.body.bytes.length} bytes, content type ${JSON.stringify(c.contentType.values)}, credentials ${c.variant}, headers ${c.extra.kind}]`;
  if (!match)
    return `${label}: answered ${answer.status} ${String(code ?? '')} (${answer.body.toString('utf8').slice(0, 160)}), documented ${allowed.map((a) => `${a.status}${a.error ? ` ${a.error}` : ''}`).join(' or ')}`;
  const bodyless = c.route.method === 'HEAD' || c.extra.kind === 'no-host';
  const json = answer.json as { error?: unknown; message?: unknown } | undefined;
  if (answer.status >= 400 && !bodyless && (typeof json?.error !== 'string' || typeof json.message !== 'string'))
    return `${label}: ${answer.status} without a { error, message } body`;
  return undefined;
}

/**
 * Runs `numRuns` generated cases, after the `examples` (defects found before, so they stay found),
 * through `check`, which returns a failure description or undefined.
 */
async function fuzz<T>(
  t: Tally,
  arbitrary: fc.Arbitrary<T>,
  numRuns: number,
  seed: number,
  check: (value: T) => Promise<string | undefined>,
  examples: T[] = [],
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(arbitrary, async (value) => {
      const failure = await check(value);
      if (failure !== undefined) t.failures.push(failure);
      // Every case runs (no shrinking, nothing printed): the failures are listed together at the end.
      return true;
    }),
    { seed, numRuns, examples: examples.map((example): [T] => [example]) },
  );
}

/** Admin paths the router decodes to the admin routes (they once skipped the admin token check). */
const ENCODED_ADMIN_PATHS = {
  list: '/%61dmin/events',
  get: '/%61dmin/events/1',
  replay: '/%61dmin/events/1/replay',
} as const;

/**
 * Requests that once got an undocumented answer, tried on every route whatever the seed draws:
 * no body and no content type (was 503), two different credentials (the first one decided), and an
 * encoded admin path (answered without the admin token).
 */
function regressions(route: GatewayRoute, family: BodyFamily): GatewayCase[] {
  const valid = route.kind === 'cash' ? 'signed' : 'valid';
  if (family === 'huge-string') return backslashRun(route, valid);
  if (family !== 'empty') return [];
  const base = {
    route,
    body: { family, bytes: Buffer.alloc(0) },
    extra: { kind: 'none', headers: [] },
    target: route.kind === 'admin' ? ENCODED_ADMIN_PATHS[route.op] : route.path,
  } satisfies Partial<GatewayCase>;
  return [
    { ...base, contentType: { values: [] }, variant: valid },
    { ...base, contentType: { values: ['application/json'] }, variant: 'repeated-different' },
  ];
}

/**
 * A valid delivery whose one field is a run of 256 KiB of backslashes (its JSON, twice that): the
 * store's scan for escapes jsonb refuses once backtracked over such a run from every position,
 * holding the gateway's event loop for hours.
 */
function backslashRun(route: GatewayRoute, variant: string): GatewayCase[] {
  if (route.kind !== 'core' && route.kind !== 'cash') return [];
  const [event] = fc.sample(route.kind === 'cash' ? cashEvent : coreEvent(route.type), { numRuns: 1, seed: SEED });
  const bytes = Buffer.from(JSON.stringify({ ...(event as object), note: '\\'.repeat(256 * 1024) }));
  return [
    {
      route,
      body: { family: 'huge-string', bytes },
      contentType: { values: ['application/json'] },
      variant,
      extra: { kind: 'none', headers: [] },
      target: route.path,
    },
  ];
}

describe('hostile input', () => {
  let stack: Stack;
  let port: number;
  let pid: number;
  let rssBeforeKb = 0;
  const rssAfterPassKb: number[] = [];
  const heapAfterPassMb: number[] = [];
  const started = performance.now();
  const gateway = tally();
  const sandbox = tally();
  const acknowledgedSeqs = new Set<string>();
  const notes: { gateway: string[]; sandbox: string[] } = { gateway: [], sandbox: [] };
  let storedOfAcknowledged = 0;

  /** Sends one gateway case, keeps the seq of what it acknowledged, and judges the answer. */
  const sendGatewayCase = async (c: GatewayCase, seqs: Set<string>): Promise<string | undefined> => {
    const credentials = credentialsFor(c);
    const request: RawRequest = {
      method: c.route.method,
      path: c.target,
      headers: [...credentials.headers, ...contentTypeHeaders(c.contentType), ...c.extra.headers],
      body: c.body.bytes,
      host: c.extra.kind !== 'no-host',
    };
    const answer = await exchange(gateway, port, request, routeName(c.route));
    if (!answer) return undefined;
    const seq = (answer.json as { seq?: unknown } | undefined)?.seq;
    if (answer.status >= 200 && answer.status < 300 && typeof seq === 'string') seqs.add(seq);
    return judgeGateway(c, credentials, answer);
  };

  beforeAll(async () => {
    stack = await startStack({
      name: 'hostile',
      gatewayEnv: {
        GATEWAY_CASH_SECRET_TOKENS: TEST_SECRETS.cashSecretToken,
        GATEWAY_CASH_TOLERANCE_SECONDS: String(TOLERANCE_SECONDS),
        GATEWAY_BODY_LIMIT_BYTES: String(BODY_LIMIT),
        GATEWAY_COMMIT_TIMEOUT_MS: String(COMMIT_BUDGET_MS),
        GATEWAY_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
        GATEWAY_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      },
    });
    port = Number(new URL(stack.gatewayUrl).port);
    pid = stack.gateway()!.pid;
    // Warm up (JIT, the store's pool, metrics) before the baseline: growth is what the fuzz adds.
    const warm = tally();
    for (const type of ['STATUS_UPDATE', 'CEP'] as const) {
      for (const event of fc.sample(coreEvent(type), { seed: SEED, numRuns: 20 })) {
        await exchange(
          warm,
          port,
          {
            method: 'POST',
            path: CORE_EVENT_PATHS[type],
            headers: [
              ['Authorization', `Bearer ${TEST_SECRETS.coreWebhookToken}`],
              ['Content-Type', 'application/json'],
            ],
            body: JSON.stringify(event),
          },
          'warm-up',
        );
      }
    }
    expect(warm.failures).toEqual([]);
    rssBeforeKb = residentKb(pid);
  });

  afterAll(async () => {
    const durationMs = performance.now() - started;
    recordScenario({
      scenario: 'hostile-input-gateway',
      sent: gateway.requests,
      acknowledged: acknowledgedSeqs.size,
      stored: storedOfAcknowledged,
      applied: null,
      lost: acknowledgedSeqs.size - storedOfAcknowledged,
      duplicated: 0,
      badInputs: gateway.requests,
      fiveXx: gateway.fiveXx,
      fiveXxAllowed: false,
      longestAnswerMs: gateway.longestAnswerMs,
      notes: [`answers: ${statusList(gateway)}`, ...notes.gateway],
      durationMs,
    });
    recordScenario({
      scenario: 'hostile-input-sandbox',
      sent: sandbox.requests,
      acknowledged: sandbox.acknowledged,
      stored: 0,
      applied: null,
      lost: 0,
      duplicated: 0,
      badInputs: sandbox.requests,
      fiveXx: sandbox.fiveXx,
      fiveXxAllowed: false,
      longestAnswerMs: sandbox.longestAnswerMs,
      notes: [`answers: ${statusList(sandbox)}`, ...notes.sandbox],
      durationMs,
    });
    await stack?.close();
  });

  it(`every gateway route answers every hostile request with its documented status, never 5xx, never a hang (${PASSES} passes)`, async () => {
    const routes = gatewayRoutes(['REPORT']);
    for (let pass = 1; pass <= PASSES; pass++) {
      // The same seed each pass: the same requests again, so the memory they need is the same.
      let seed = SEED;
      for (const route of routes) {
        for (const family of BODY_FAMILIES) {
          await fuzz(
            gateway,
            gatewayCase(route, family),
            RUNS[family],
            seed++,
            (c) => sendGatewayCase(c, acknowledgedSeqs),
            regressions(route, family),
          );
        }
      }
      rssAfterPassKb.push(residentKb(pid));
      heapAfterPassMb.push(await heapUsedMb(port));
    }
    notes.gateway.push(
      `${PASSES} passes of ${gateway.requests / PASSES} requests: ${routes.length} routes (${routes.map(routeName).join('; ')}) × ${BODY_FAMILIES.length} body families, seed ${SEED}`,
    );
    expect(
      gateway.failures.slice(0, 20),
      `${gateway.failures.length} of ${gateway.requests} requests got an answer other than the documented one`,
    ).toEqual([]);
    expect(gateway.fiveXx).toBe(0);
  });

  it(`${SLOW_CLIENTS} slow clients are closed by the gateway's timeouts while deliveries keep being answered within budget`, async () => {
    // Half trickle their headers, half their body, one byte every 200 ms: without server timeouts they would stay forever.
    const head = `POST ${CORE_EVENT_PATHS.STATUS_UPDATE} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_SECRETS.coreWebhookToken}\r\nContent-Type: application/json\r\n`;
    const slow = Array.from({ length: SLOW_CLIENTS }, (_, i) =>
      i % 2 === 0
        ? startSlowClient(port, {
            prefix: `POST ${CORE_EVENT_PATHS.STATUS_UPDATE} HTTP/1.1\r\nHost: 127.0.0.1\r\n`,
            trickle: 'X-Slow: aaaaaaaaaaaaaaaaaaaa\r\n',
            intervalMs: 200,
          })
        : startSlowClient(port, {
            prefix: `${head}Content-Length: 100000\r\n\r\n{"a":"`,
            trickle: 'x',
            intervalMs: 200,
          }),
    );
    try {
      const during = tally();
      const events = fc.sample(coreEvent('STATUS_UPDATE'), { seed: SEED + 1, numRuns: scaled(60, 20) });
      const deliveries = events.map((event) => ({
        method: 'POST',
        path: CORE_EVENT_PATHS.STATUS_UPDATE,
        headers: [
          ['Authorization', `Bearer ${TEST_SECRETS.coreWebhookToken}`],
          ['Content-Type', 'application/json'],
        ] as RawHeader[],
        body: JSON.stringify(event),
      }));
      for (const delivery of deliveries) {
        const answer = await exchange(during, port, delivery, 'delivery beside slow clients');
        if (answer && answer.status !== 200)
          during.failures.push(`a delivery beside the slow clients got ${answer.status}`);
        if (answer) acknowledgedSeqs.add((answer.json as { seq: string }).seq);
        await sleep(50);
      }
      const closedAfter = await Promise.race([
        Promise.all(slow.map((client) => client.closed)),
        sleep(REQUEST_TIMEOUT_MS + 10_000).then(() => undefined),
      ]);
      const closed = closedAfter?.length ?? 0;
      const timedOut = slow.filter((client) => client.received().toString('latin1').startsWith('HTTP/1.1 408')).length;
      const longestOpen = closedAfter ? Math.max(...closedAfter) : Infinity;
      gateway.requests += during.requests;
      gateway.fiveXx += during.fiveXx;
      gateway.longestAnswerMs = Math.max(gateway.longestAnswerMs, during.longestAnswerMs);
      notes.gateway.push(
        `slowloris: ${SLOW_CLIENTS} clients (${SLOW_CLIENTS / 2} trickling headers, ${SLOW_CLIENTS / 2} a body) closed ${closed}/${SLOW_CLIENTS}, ${timedOut} with 408, the last after ${Math.round(longestOpen)} ms ` +
          `(GATEWAY_HEADERS_TIMEOUT_MS ${HEADERS_TIMEOUT_MS}, GATEWAY_REQUEST_TIMEOUT_MS ${REQUEST_TIMEOUT_MS}); meanwhile ${during.requests} deliveries answered 200, the slowest in ${Math.round(during.longestAnswerMs)} ms`,
      );
      expect(during.failures).toEqual([]);
      expect(during.longestAnswerMs).toBeLessThan(COMMIT_BUDGET_MS);
      expect(closed).toBe(SLOW_CLIENTS);
      expect(timedOut).toBe(SLOW_CLIENTS);
      // Node checks the timeouts once a second here: a client outlives its timeout by at most that, plus scheduling.
      expect(longestOpen).toBeLessThan(REQUEST_TIMEOUT_MS + 2_500);
    } finally {
      for (const client of slow) client.destroy();
    }
  });

  it('every sandbox route answers hostile requests with a 2xx or its product’s documented 4xx, never 5xx, never a hang', async () => {
    const sandboxPort = Number(new URL(stack.sandbox.url).port);
    const creds = await sandboxCredentials(stack);
    const routes = sandboxRoutes();
    let seed = SEED + 10_000;
    for (const route of routes) {
      for (const family of BODY_FAMILIES) {
        const arbitrary = fc.record({
          body: bodyOf(family, route.base, BODY_LIMIT),
          contentType: contentTypes,
          variant: credentialVariant<'valid' | 'wrong' | 'missing'>('valid', ['valid', 'wrong', 'missing']),
          extra: extraHeaders,
        });
        await fuzz(sandbox, arbitrary, Math.max(1, Math.ceil(RUNS[family] / 2)), seed++, async (c) => {
          const request: RawRequest = {
            method: route.method,
            path: route.path,
            headers: [
              ...sandboxAuthHeaders(route, c.variant, c.body.bytes, creds),
              ...contentTypeHeaders(c.contentType),
              ...c.extra.headers,
            ],
            body: c.body.bytes,
            host: c.extra.kind !== 'no-host',
          };
          const label = `sandbox ${route.method} ${route.path} [${c.body.family}, ${c.body.bytes.length} bytes, content type ${JSON.stringify(c.contentType.values)}, credentials ${c.variant}, headers ${c.extra.kind}]`;
          // The sandbox's 2xx carry what it is asked for (GET /_sandbox/seed holds its keys): only its errors are audited.
          const answer = await exchange(sandbox, sandboxPort, request, label, (a) => a.status >= 400);
          return answer && judgeSandbox(route, c.extra, answer, label);
        });
      }
      // A mutation of PUT /faults or a valid-but-odd control call must not leave faults behind for the next route.
      await stack.sandbox.control.setFaults({ body: {} });
    }
    // The deliveries the fuzzed triggers caused reached the gateway: none of them got a 5xx either.
    const deliveries = await stack.deliveries();
    const delivery5xx = deliveries
      .flatMap((d) => d.attempts)
      .filter((a) => a.status !== null && a.status >= 500).length;
    notes.sandbox.push(
      `${routes.length} routes × ${BODY_FAMILIES.length} body families, seed ${SEED + 10_000}; the ${deliveries.length} deliveries the fuzzed triggers caused got ${delivery5xx} 5xx from the gateway`,
    );
    expect(
      sandbox.failures.slice(0, 20),
      `${sandbox.failures.length} of ${sandbox.requests} sandbox requests got an undocumented answer`,
    ).toEqual([]);
    expect(sandbox.fiveXx).toBe(0);
    expect(delivery5xx).toBe(0);
  });

  it('the gateway is alive and healthy, and its memory does not grow with the requests it refuses', async () => {
    const alive = isAlive(pid);
    const health = await sendRaw(port, { method: 'GET', path: '/healthz' });
    const [first, ...rest] = rssAfterPassKb;
    const steadyGrowthKb = Math.max(...rest) - first!;
    notes.gateway.push(
      `gateway RSS ${mb(rssBeforeKb)} MB after warm-up, ${rssAfterPassKb.map(mb).join(' / ')} MB after each pass: ` +
        `${mb(steadyGrowthKb)} MB more after the repeats than after the first pass (bound ${mb(STEADY_GROWTH_LIMIT_KB)} MB), ${mb(first! - rssBeforeKb)} MB for the first (bound ${mb(FIRST_PASS_LIMIT_KB)} MB); V8 heap in use ${heapAfterPassMb.join(' / ')} MB; alive: ${alive}`,
    );
    expect(rssAfterPassKb).toHaveLength(PASSES);
    expect(steadyGrowthKb).toBeLessThan(STEADY_GROWTH_LIMIT_KB);
    expect(first! - rssBeforeKb).toBeLessThan(FIRST_PASS_LIMIT_KB);
    expect(alive).toBe(true);
    expect(health.status).toBe(200);
  });

  it('every delivery the gateway acknowledged with a seq is in the store', async () => {
    // Last: on PGlite, reading the store stops the gateway.
    const seqs = [...acknowledgedSeqs];
    storedOfAcknowledged = await stack.withStore(async (db) =>
      Number(
        (
          await db.query<{ n: string }>(
            'SELECT count(*)::text AS n FROM webhook_events WHERE seq = ANY($1::bigint[])',
            [seqs],
          )
        ).rows[0]!.n,
      ),
    );
    notes.gateway.push(
      `${seqs.length} deliveries acknowledged with a seq (valid-but-odd events included), ${storedOfAcknowledged} of them in the store`,
    );
    expect(storedOfAcknowledged).toBe(seqs.length);
  });
});

/** The gateway's V8 heap in use, from its own /metrics (nodejs_heap_size_used_bytes). */
async function heapUsedMb(port: number): Promise<number> {
  const metrics = (await sendRaw(port, { method: 'GET', path: '/metrics' })).body.toString('utf8');
  const used = /^gateway_process_nodejs_heap_size_used_bytes (\S+)$/m.exec(metrics)?.[1];
  return used === undefined ? NaN : Math.round(Number(used) / 1_048_576);
}

/** The seed's credentials, and a core token, for the sandbox routes (declared to the secret audit). */
async function sandboxCredentials(stack: Stack): Promise<SandboxCredentials> {
  const seed = await stack.sandbox.control.getSeed();
  if (seed.status !== 200) throw new Error(`cannot read the sandbox seed (${seed.status})`);
  const client = seed.body.core.clients[0]!;
  const staging = client.credentials.find((c) => c.environment === 'staging')!;
  const tokenAnswer = await fetch(`${stack.sandbox.urls.core}/v1/clients/${client.clientId}/auth/credential-tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': client.apiKeys.staging },
    body: JSON.stringify({ client_id: client.clientId, client_secret: staging.clientSecret }),
  });
  if (tokenAnswer.status !== 200)
    throw new Error(
      `the sandbox refused a core token for the seed's client (${tokenAnswer.status}): check the seed's staging credential`,
    );
  const coreToken = ((await tokenAnswer.json()) as { token: string }).token;
  declareSecret(coreToken);
  const bearer = seed.body.bearer;
  return {
    clientId: client.clientId,
    coreApiKey: client.apiKeys.staging,
    coreToken,
    directDebitKey: seed.body.directDebit!.apiKeys[0]!,
    cash: seed.body.cash[0]!,
    bearer: { billpay: bearer.billpay[0]!, 'gift-cards': bearer['gift-cards'][0]!, lottery: bearer.lottery[0]!.token },
    nowSeconds: () => Math.floor(Date.now() / 1000),
  };
}

/** A 2xx, or a documented 4xx in the product's error shape (node:http's own 400 for a request without Host has no body). */
function judgeSandbox(route: SandboxRoute, extra: ExtraHeaders, answer: RawAnswer, label: string): string | undefined {
  if (answer.status >= 200 && answer.status < 300) return undefined;
  if (!SANDBOX_4XX.has(answer.status))
    return `${label}: answered ${answer.status} (${answer.body.toString('utf8').slice(0, 160)})`;
  if (extra.kind === 'no-host' || extra.kind === 'control-byte' || extra.kind === 'huge') return undefined;
  if (!sandboxErrorShape(route.product, answer.json))
    return `${label}: ${answer.status} not in the ${route.product} error shape (${answer.body.toString('utf8').slice(0, 160)})`;
  return undefined;
}
