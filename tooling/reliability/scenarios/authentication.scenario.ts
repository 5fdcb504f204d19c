// 6. Authentication. Every core route with wrong, missing, empty, truncated, extended, re-cased
// and repeated bearer tokens, other schemes, other secrets, and the token of a finished rotation
// (the gateway restarted with "new,old" → "new"); the cash route with tampered, truncated,
// re-encoded, wrong-secret and repeated signatures, missing headers, and a signed delivery replayed
// after its timestamp left GATEWAY_CASH_TOLERANCE_SECONDS; the admin API with wrong tokens. Every
// one is 401 and nothing of it is stored (checked in the store itself); valid deliveries are
// accepted (the positive control). Constant time: the gateway's source is checked to leave every
// credential comparison to the runtime, whose verifiers compare with timingSafeEqual.
import { randomUUID } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CASH_WEBHOOK_PATH, CORE_EVENT_PATHS, CORE_EVENT_TYPES, type CoreEventType } from '@paykit/contracts';
import { hmacSha256Hex } from '@paykit/runtime';
import type { Database } from '@paykit/store';
import { startAppProcess, type AppProcess } from '@paykit/testing/app-process';
import { TEST_SECRETS, record } from '@paykit/testing/secret-audit';
import { cashEvent, coreEvent } from '../src/fuzz/events.ts';
import { NoAnswerError, sendRaw, type RawAnswer, type RawHeader } from '../src/http.ts';
import { sleep } from '../src/load.ts';
import { recordScenario } from '../src/report.ts';
import { scaled } from '../src/scale.ts';
import { createScenarioStore, type ScenarioStore } from '../src/store.ts';

const REPO = path.resolve(import.meta.dirname, '../../..');
const GATEWAY_MAIN = path.join(REPO, 'apps/webhook-gateway/src/main.ts');
/** Short, so a replay can fall outside it within the scenario's time. */
const TOLERANCE_SECONDS = 2;
const NEW = TEST_SECRETS.coreWebhookToken;
const OLD = TEST_SECRETS.previousCoreWebhookToken;
/** Each refused variant is tried this many times per route (fresh event ids each time). */
const ROUNDS = scaled(5, 2);

/** A bearer credential the gateway must refuse, by name (the value is built when sending: nothing here is printed). */
const REFUSED_BEARERS: Record<string, (token: string) => RawHeader[]> = {
  missing: () => [],
  empty: () => [['Authorization', '']],
  'scheme only': () => [['Authorization', 'Bearer']],
  wrong: (token) => [['Authorization', `Bearer ${'x'.repeat(token.length)}`]],
  'truncated by one': (token) => [['Authorization', `Bearer ${token.slice(0, -1)}`]],
  'truncated to half': (token) => [['Authorization', `Bearer ${token.slice(0, token.length / 2)}`]],
  'extended by one': (token) => [['Authorization', `Bearer ${token}x`]],
  'token upper-cased': (token) => [['Authorization', `Bearer ${token.toUpperCase()}`]],
  'token lower-cased': (token) => [['Authorization', `Bearer ${token.toLowerCase()}`]],
  'Basic scheme': (token) => [['Authorization', `Basic ${token}`]],
  'Basic base64': (token) => [['Authorization', `Basic ${Buffer.from(`user:${token}`).toString('base64')}`]],
  'no scheme': (token) => [['Authorization', token]],
  'two tokens in one header': (token) => [['Authorization', `Bearer ${token} ${token}`]],
  'repeated, second different': (token) => [
    ['Authorization', `Bearer ${token}`],
    ['Authorization', 'Bearer wrong-token-0000000000000000000000'],
  ],
  'repeated, first different': (token) => [
    ['Authorization', 'Bearer wrong-token-0000000000000000000000'],
    ['Authorization', `Bearer ${token}`],
  ],
  'the admin token': () => [['Authorization', `Bearer ${TEST_SECRETS.adminToken}`]],
  'the cash secret': () => [['Authorization', `Bearer ${TEST_SECRETS.cashSecretToken}`]],
};

/**
 * Accepted: the token itself, with the scheme in any case (RFC 7235 §2.1: the auth scheme is
 * case-insensitive; the token is compared exactly).
 */
const ACCEPTED_BEARERS: Record<string, (token: string) => RawHeader[]> = {
  'Bearer <token>': (token) => [['Authorization', `Bearer ${token}`]],
  'bearer <token> (scheme lower-case)': (token) => [['Authorization', `bearer ${token}`]],
  'BEARER <token> (scheme upper-case)': (token) => [['Authorization', `BEARER ${token}`]],
  'repeated, same token': (token) => [
    ['Authorization', `Bearer ${token}`],
    ['Authorization', `Bearer ${token}`],
  ],
};

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Cash signature variants the gateway must refuse, over the exact bytes sent. */
const REFUSED_CASH: Record<string, (raw: Buffer) => RawHeader[]> = {
  'no signature headers': () => [],
  'no signature': () => [['X-Webhook-Timestamp', String(nowSeconds())]],
  'no timestamp': (raw) => [['X-Webhook-Signature', sign(raw)]],
  'empty signature': () => signed(''),
  'tampered (one hex digit)': (raw) => signed(flip(sign(raw))),
  'truncated (63 hex)': (raw) => signed(sign(raw).slice(0, 63)),
  'truncated (32 hex)': (raw) => signed(sign(raw).slice(0, 32)),
  'extended (65 hex)': (raw) => signed(`${sign(raw)}0`),
  're-encoded as base64': (raw) => signed(Buffer.from(sign(raw), 'hex').toString('base64')),
  're-encoded as base64url': (raw) => signed(Buffer.from(sign(raw), 'hex').toString('base64url')),
  'with a sha256= prefix': (raw) => signed(`sha256=${sign(raw)}`),
  'signed with another secret': (raw) => signed(hmacSha256Hex('f'.repeat(64), raw)),
  'signed over other bytes': (raw) => signed(sign(Buffer.concat([raw, Buffer.from(' ')]))),
  'signed over timestamp.body': (raw) =>
    signed(hmacSha256Hex(TEST_SECRETS.cashSecretToken, `${nowSeconds()}.${raw.toString('utf8')}`)),
  'repeated, second different': (raw) => [
    ['X-Webhook-Signature', sign(raw)],
    ['X-Webhook-Signature', flip(sign(raw))],
    ['X-Webhook-Timestamp', String(nowSeconds())],
  ],
  'timestamp past the tolerance': (raw) => signed(sign(raw), nowSeconds() - TOLERANCE_SECONDS - 30),
  'timestamp ahead of the tolerance': (raw) => signed(sign(raw), nowSeconds() + TOLERANCE_SECONDS + 30),
  'timestamp in milliseconds': (raw) => signed(sign(raw), Date.now()),
  'timestamp not a number': (raw) => [
    ['X-Webhook-Signature', sign(raw)],
    ['X-Webhook-Timestamp', 'yesterday'],
  ],
};

function sign(raw: Buffer): string {
  return hmacSha256Hex(TEST_SECRETS.cashSecretToken, raw);
}

function signed(signature: string, timestamp = nowSeconds()): RawHeader[] {
  return [
    ['X-Webhook-Signature', signature],
    ['X-Webhook-Timestamp', String(timestamp)],
  ];
}

function flip(hex: string): string {
  return `${hex.slice(0, 20)}${hex[20] === '0' ? '1' : '0'}${hex.slice(21)}`;
}

const JSON_TYPE: RawHeader = ['Content-Type', 'application/json'];

/**
 * A valid event for a core route with ids never used before (a new id_msg, or for REPORT a new
 * file name): fast-check draws the rest, but it favours small uuids, and two deliveries sharing
 * an id would be one event to the store.
 */
function freshCoreEvent(type: CoreEventType, seed: number): { raw: Buffer; key: string } {
  const [event] = fc.sample(coreEvent(type), { seed, numRuns: 1 }) as [Record<string, unknown>];
  if (type === 'REPORT') {
    event.file_name = `TRANSACTIONS_DAILY_${randomUUID()}.csv`;
    return {
      raw: Buffer.from(JSON.stringify(event)),
      key: `core:report:${String(event.client_id)}:${event.file_name}`,
    };
  }
  event.id_msg = randomUUID();
  return { raw: Buffer.from(JSON.stringify(event)), key: `core:${type}:${String(event.id_msg)}` };
}

let operations = 0;

function freshCashEvent(seed: number): { raw: Buffer; key: string } {
  const [event] = fc.sample(
    cashEvent.filter((e) => e.event !== 'webhook.activation'),
    { seed, numRuns: 1 },
  ) as [Record<string, unknown>];
  event.operation_id = 1_000_000_000 + ++operations;
  return { raw: Buffer.from(JSON.stringify(event)), key: `cash:${event.operation_id}:${String(event.event)}` };
}

interface Outcome {
  sent: number;
  accepted: number;
  refused: number;
  fiveXx: number;
  longestAnswerMs: number;
  /** What should have been accepted but was not, or refused but was not. */
  wrong: string[];
  acceptedKeys: Set<string>;
  refusedKeys: Set<string>;
  counts: Map<string, number>;
}

describe('authentication', () => {
  let store: ScenarioStore;
  let gateway: AppProcess | undefined;
  let port = 0;
  let seed = 20_261_121;
  const started = performance.now();
  const outcome: Outcome = {
    sent: 0,
    accepted: 0,
    refused: 0,
    fiveXx: 0,
    longestAnswerMs: 0,
    wrong: [],
    acceptedKeys: new Set(),
    refusedKeys: new Set(),
    counts: new Map(),
  };
  const notes: string[] = [];
  let storedFigures = { stored: 0, acceptedStored: 0, refusedStored: 0 };

  const startGateway = async (coreTokens: string) => {
    gateway = await startAppProcess({
      name: 'The gateway',
      main: GATEWAY_MAIN,
      env: {
        ...store.env,
        GATEWAY_PORT: '0',
        GATEWAY_LOG_LEVEL: 'info',
        ...Object.fromEntries(CORE_EVENT_TYPES.map((type) => [`GATEWAY_CORE_TOKENS_${type}`, coreTokens])),
        GATEWAY_CASH_SECRET_TOKENS: TEST_SECRETS.cashSecretToken,
        GATEWAY_CASH_TOLERANCE_SECONDS: String(TOLERANCE_SECONDS),
        GATEWAY_ADMIN_TOKEN: TEST_SECRETS.adminToken,
        GATEWAY_UNKNOWN_ACCOUNT: 'accept',
      },
      onOutput: (text) => record('gateway output', text),
    });
    port = Number(new URL(gateway.url).port);
  };
  const stopGateway = async () => {
    await gateway?.stop();
    gateway = undefined;
  };
  const withStore = async <T>(read: (db: Database) => Promise<T>): Promise<T> => {
    // PGlite is one process per folder: the gateway is stopped before the store is read.
    if (store.kind === 'pglite') await stopGateway();
    return store.read(read);
  };

  /** Sends one delivery; `expect` is what the gateway must answer (2xx or 401). */
  const deliver = async (
    what: string,
    pathName: string,
    headers: RawHeader[],
    event: { raw: Buffer; key: string },
    expected: 'accepted' | 'refused',
  ): Promise<RawAnswer | undefined> => {
    outcome.sent++;
    outcome.counts.set(what, (outcome.counts.get(what) ?? 0) + 1);
    let answer: RawAnswer;
    try {
      answer = await sendRaw(
        port,
        { method: 'POST', path: pathName, headers: [...headers, JSON_TYPE], body: event.raw },
        10_000,
      );
    } catch (error) {
      if (!(error instanceof NoAnswerError)) throw error;
      outcome.wrong.push(`${pathName} ${what}: ${error.message}`);
      return undefined;
    }
    record(`answer to ${pathName} ${what}`, `${answer.status} ${answer.body.toString('utf8')}`);
    outcome.longestAnswerMs = Math.max(outcome.longestAnswerMs, answer.ms);
    if (answer.status >= 500) outcome.fiveXx++;
    const ok = answer.status >= 200 && answer.status < 300;
    if (ok) {
      outcome.accepted++;
      outcome.acceptedKeys.add(event.key);
    } else if (answer.status === 401) {
      outcome.refused++;
      outcome.refusedKeys.add(event.key);
    }
    const code = (answer.json as { error?: unknown } | undefined)?.error;
    if (expected === 'accepted' && !ok)
      outcome.wrong.push(`${pathName} ${what}: expected 2xx, got ${answer.status} ${String(code ?? '')}`);
    if (expected === 'refused' && (answer.status !== 401 || code !== 'unauthorized'))
      outcome.wrong.push(`${pathName} ${what}: expected 401 unauthorized, got ${answer.status} ${String(code ?? '')}`);
    return answer;
  };

  /** Every core route, every refused bearer variant (ROUNDS times), then the accepted ones. */
  const bearerRound = async (accepted: readonly string[], refusedTokens: readonly string[]) => {
    for (const type of CORE_EVENT_TYPES) {
      const route = CORE_EVENT_PATHS[type];
      for (let round = 0; round < ROUNDS; round++) {
        for (const [name, build] of Object.entries(REFUSED_BEARERS))
          await deliver(`bearer ${name}`, route, build(NEW), freshCoreEvent(type, seed++), 'refused');
        for (const token of refusedTokens)
          await deliver(
            'bearer of a finished rotation',
            route,
            [['Authorization', `Bearer ${token}`]],
            freshCoreEvent(type, seed++),
            'refused',
          );
      }
      for (const token of accepted) {
        for (const [name, build] of Object.entries(ACCEPTED_BEARERS))
          await deliver(
            `bearer ${name}${token === OLD ? ' (the rotation’s previous token)' : ''}`,
            route,
            build(token),
            freshCoreEvent(type, seed++),
            'accepted',
          );
      }
    }
  };

  beforeAll(async () => {
    store = await createScenarioStore('auth');
  });

  afterAll(async () => {
    recordScenario({
      scenario: 'authentication',
      sent: outcome.sent,
      // Distinct events (the admin read and the deduplicated replays are requests, not events).
      acknowledged: outcome.acceptedKeys.size,
      stored: storedFigures.stored,
      applied: null,
      lost: outcome.acceptedKeys.size - storedFigures.acceptedStored,
      duplicated: 0,
      badInputs: outcome.sent - outcome.accepted,
      fiveXx: outcome.fiveXx,
      fiveXxAllowed: false,
      longestAnswerMs: outcome.longestAnswerMs,
      notes,
      durationMs: performance.now() - started,
    });
    await stopGateway();
    await store?.remove();
  });

  it('during a rotation ("new,old") both tokens are accepted on every core route, and every other credential is 401', async () => {
    await startGateway(`${NEW},${OLD}`);
    await bearerRound([NEW, OLD], []);
    expect(outcome.wrong).toEqual([]);
  });

  it('after the rotation (restarted with "new" only) the old token is 401 on every core route, the new one accepted', async () => {
    await stopGateway();
    await startGateway(NEW);
    await bearerRound([NEW], [OLD]);
    expect(outcome.wrong).toEqual([]);
  });

  it('the cash route refuses every tampered, truncated, re-encoded, foreign or stale signature and missing header with 401', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, build] of Object.entries(REFUSED_CASH)) {
        const event = freshCashEvent(seed++);
        await deliver(`cash ${name}`, CASH_WEBHOOK_PATH, build(event.raw), event, 'refused');
      }
    }
    // Hex is hex in either case: the same digest, so the same signature (the runtime lower-cases it).
    const upper = freshCashEvent(seed++);
    await deliver(
      'cash signature in upper-case hex',
      CASH_WEBHOOK_PATH,
      signed(sign(upper.raw).toUpperCase()),
      upper,
      'accepted',
    );
    expect(outcome.wrong).toEqual([]);
  });

  it(`a signed cash delivery replayed after its timestamp left the ${TOLERANCE_SECONDS} s tolerance is 401`, async () => {
    const replays = scaled(5, 2);
    const originals = Array.from({ length: replays }, () => {
      const event = freshCashEvent(seed++);
      return { event, headers: signed(sign(event.raw)) };
    });
    for (const { event, headers } of originals)
      await deliver('cash signed delivery (the original)', CASH_WEBHOOK_PATH, headers, event, 'accepted');
    await sleep((TOLERANCE_SECONDS + 1.5) * 1000);
    // The same bytes and headers again: the signature still matches, the timestamp no longer does.
    for (const { event, headers } of originals) {
      const answer = await deliver(
        'cash replay past the tolerance',
        CASH_WEBHOOK_PATH,
        headers,
        { raw: event.raw, key: `replay ${event.key}` },
        'refused',
      );
      expect(answer?.status).toBe(401);
    }
    // The platform signs the body only (platform reference: HMAC of the raw payload), not the
    // timestamp: a replay given a fresh timestamp authenticates, and deduplication answers it again
    // without storing it twice (the store check below counts each accepted event once).
    let duplicates = 0;
    for (const { event } of originals) {
      const answer = await deliver(
        'cash replay with a fresh timestamp',
        CASH_WEBHOOK_PATH,
        signed(sign(event.raw)),
        event,
        'accepted',
      );
      if ((answer?.json as { message?: unknown } | undefined)?.message === 'Already stored.') duplicates++;
    }
    expect(duplicates).toBe(replays);
    notes.push(
      `${replays} signed cash deliveries accepted, then replayed byte for byte ${TOLERANCE_SECONDS + 1.5} s later: all 401 (GATEWAY_CASH_TOLERANCE_SECONDS ${TOLERANCE_SECONDS}). ` +
        `The signature covers the body, not the timestamp: the same replays with a fresh timestamp authenticate and were answered "Already stored." (${duplicates}/${replays}), stored once`,
    );
    expect(outcome.wrong).toEqual([]);
  });

  it('the admin API refuses every wrong admin credential with 401', async () => {
    const admin = async (name: string, headers: RawHeader[], pathName: string, expected: number) => {
      outcome.sent++;
      const answer = await sendRaw(port, { method: 'GET', path: pathName, headers }, 10_000);
      outcome.longestAnswerMs = Math.max(outcome.longestAnswerMs, answer.ms);
      if (answer.status >= 500) outcome.fiveXx++;
      if (answer.status === 200) outcome.accepted++;
      if (answer.status === 401) outcome.refused++;
      if (answer.status !== expected)
        outcome.wrong.push(`admin ${pathName} ${name}: expected ${expected}, got ${answer.status}`);
    };
    for (const pathName of ['/admin/events', '/admin/events/1', '/%61dmin/events']) {
      for (const [name, build] of Object.entries(REFUSED_BEARERS)) {
        if (name !== 'the admin token') await admin(name, build(TEST_SECRETS.adminToken), pathName, 401);
      }
      await admin('a core webhook token', [['Authorization', `Bearer ${NEW}`]], pathName, 401);
    }
    await admin(
      'the admin token',
      [['Authorization', `Bearer ${TEST_SECRETS.adminToken}`]],
      '/admin/events?limit=1',
      200,
    );
    expect(outcome.wrong).toEqual([]);
  });

  it('nothing refused is in the store; everything accepted is, once', async () => {
    storedFigures = await withStore(async (db) => {
      const count = async (sql: string, keys: string[]) =>
        Number((await db.query<{ n: string }>(sql, [keys])).rows[0]!.n);
      const everything = Number(
        (await db.query<{ n: string }>('SELECT count(*)::text AS n FROM webhook_events')).rows[0]!.n,
      );
      return {
        stored: everything,
        acceptedStored: await count(
          'SELECT count(*)::text AS n FROM webhook_events WHERE dedupe_key = ANY($1::text[])',
          [...outcome.acceptedKeys],
        ),
        refusedStored: await count(
          'SELECT count(*)::text AS n FROM webhook_events WHERE dedupe_key = ANY($1::text[])',
          [...outcome.refusedKeys],
        ),
      };
    });
    const variants = [...outcome.counts.entries()].map(([name, n]) => `${name} ×${n}`);
    notes.unshift(
      `${outcome.sent} requests: ${outcome.accepted} accepted (positive controls), ${outcome.refused} refused with 401; store: ${storedFigures.stored} events, ` +
        `${storedFigures.acceptedStored} of ${outcome.acceptedKeys.size} accepted, ${storedFigures.refusedStored} of ${outcome.refusedKeys.size} refused`,
      `rotation: "new,old" accepted both; restarted with "new": the old token refused on all ${CORE_EVENT_TYPES.length} core routes`,
      `variants: ${variants.join('; ')}`,
    );
    expect(storedFigures.refusedStored).toBe(0);
    expect(storedFigures.acceptedStored).toBe(outcome.acceptedKeys.size);
    expect(storedFigures.stored).toBe(outcome.acceptedKeys.size);
  });
});

// ---------------------------------------------------------------------------------------------
// Constant time, by reading the code: the gateway compares no credential itself, every route's
// check is built from the runtime's and the cash client's verifiers, and those compare with timingSafeEqual.

const GATEWAY_SRC = path.join(REPO, 'apps/webhook-gateway/src');
const RUNTIME_SIGNING = path.join(REPO, 'packages/runtime/src/core/signing.ts');
const CASH_SIGNING = path.join(REPO, 'packages/cash-client/src/signing.ts');

/** An identifier chain naming a credential (not its length), next to a plain comparison or a prefix test. */
const CREDENTIAL = String.raw`[\w.$\[\]'"]*(?:token|secret|signature|authorization|bearer|digest|expected|given)[\w$\[\]'"]*`;
const PLAIN_COMPARISONS = [
  new RegExp(String.raw`(?<![\w.])${CREDENTIAL}(?<!\.length|\.size)\s*(?:===?|!==?)`, 'i'),
  new RegExp(String.raw`(?:===?|!==?)\s*${CREDENTIAL}(?!\.length|\.size|\w)`, 'i'),
  new RegExp(String.raw`${CREDENTIAL}\.(?:includes|indexOf|startsWith|endsWith|localeCompare|equals)\(`, 'i'),
  /\bBuffer\.compare\(/,
];

/** Lines of code (comments and string contents blanked) that compare a credential in plain. */
function plainComparisons(file: string, source: string): string[] {
  const code = source
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' '))
    .replace(/\/\/.*$/gm, '')
    .replace(/`(?:\\.|[^`\\])*`|'(?:\\.|[^'\\])*'/g, (literal) => `'${' '.repeat(Math.max(0, literal.length - 2))}'`);
  return code.split('\n').flatMap((line, index) => {
    // Not comparisons of a credential's value: a typeof check, and presence (undefined, null, '').
    const checked = line
      .replace(/typeof\s+[\w.]+\s*[!=]==?\s*'\s*'/g, '')
      .replace(/\s*[!=]==?\s*(?:undefined|null|'')(?![\w'])/g, '')
      .replace(/(?:undefined|null)\s*[!=]==?\s*/g, '');
    return PLAIN_COMPARISONS.some((pattern) => pattern.test(checked))
      ? [`${path.relative(REPO, file)}:${index + 1}: ${line.trim()}`]
      : [];
  });
}

/** The source of one top-level function (from its declaration to the next top-level line). */
function functionBody(source: string, name: string): string {
  const start = source.search(new RegExp(String.raw`^export function ${name}\b`, 'm'));
  if (start < 0) throw new Error(`no function ${name} in the source read: the constant-time check needs updating`);
  const end = source.slice(start + 1).search(/^(?:export |function |\/\*\*)/m);
  return end < 0 ? source.slice(start) : source.slice(start, start + 1 + end);
}

describe('constant-time comparison', () => {
  it('the gateway compares no credential itself: no ===, !==, includes, startsWith or Buffer.compare on a token, secret or signature', async () => {
    const files = (await readdir(GATEWAY_SRC))
      .filter((file) => file.endsWith('.ts'))
      .map((file) => path.join(GATEWAY_SRC, file));
    const found: string[] = [];
    for (const file of files) found.push(...plainComparisons(file, await readFile(file, 'utf8')));
    expect(found).toEqual([]);
    // The check itself must see a plain comparison when there is one.
    expect(
      plainComparisons('example.ts', 'if (given === config.adminToken) ok();\nif (tokens.includes(bearer)) ok();'),
    ).toHaveLength(2);
    expect(
      plainComparisons(
        'example.ts',
        "if (config.tokens.length === 0) no();\nif (typeof token !== 'string' || token === '') no();\nif (adminToken !== undefined) ok();",
      ),
    ).toEqual([]);
  });

  it('every route’s check is built from the runtime’s and the cash client’s verifiers', async () => {
    const auth = await readFile(path.join(GATEWAY_SRC, 'auth.ts'), 'utf8');
    const routes = await readFile(path.join(GATEWAY_SRC, 'webhook-routes.ts'), 'utf8');
    const deliveries = await readFile(path.join(GATEWAY_SRC, 'deliveries.ts'), 'utf8');
    const ops = await readFile(path.join(GATEWAY_SRC, 'ops.ts'), 'utf8');
    // Core routes: one authenticator per type, from createCoreWebhookVerifier; the hook uses them for every core route.
    expect(auth).toMatch(/import \{[^}]*\bcreateCoreWebhookVerifier\b[^}]*\} from '@paykit\/runtime'/);
    expect(auth).toMatch(/import \{[^}]*\bverifyCashWebhook\b[^}]*\} from '@paykit\/cash-client'/);
    expect(functionBody(auth, 'coreAuthenticator')).toMatch(/createCoreWebhookVerifier\(config\.tokens\)/);
    expect(routes).toMatch(
      /CORE_EVENT_TYPES\.map\(\(type\) => \[CORE_EVENT_PATHS\[type\] as string, coreAuthenticator\(type, config\.core\[type\]\)\]\)/,
    );
    expect(routes).toMatch(/const auth = authenticate\(credentialHeaders\(request\.raw\.rawHeaders\)\)/);
    // Cash: every configured secret through verifyCashWebhook, called by the cash handler before anything is read.
    expect(functionBody(auth, 'verifyCash')).toMatch(/verifyCashWebhook\(raw, headers, secret,/);
    expect(deliveries).toMatch(
      /const verified = verifyCash\(raw, credentialHeaders\(request\.raw\.rawHeaders\), config\.cash, now\(\)\);\s*if \(!verified\.ok\) return refusal\(request, 401/,
    );
    // Admin API: the same verifier, over the admin token.
    expect(ops).toMatch(/createCoreWebhookVerifier\(\[config\.adminToken\]\)/);
    expect(ops).toMatch(/verifyAdmin\(credentialHeaders\(request\.raw\.rawHeaders\)\)/);
  });

  it('the runtime’s and the cash client’s verifiers compare in constant time (timingSafeEqual over digests), never in plain', async () => {
    const signing = await readFile(RUNTIME_SIGNING, 'utf8');
    const cashSigning = await readFile(CASH_SIGNING, 'utf8');
    const constantTimeEqual = functionBody(signing, 'constantTimeEqual');
    expect(constantTimeEqual).toMatch(/timingSafeEqual\(digestOf\(/);
    expect(functionBody(cashSigning, 'verifyCashWebhook')).toMatch(
      /constantTimeEqual\(expected, signature\.toLowerCase\(\)\)/,
    );
    const coreVerifier = functionBody(signing, 'createCoreWebhookVerifier');
    expect(coreVerifier).toMatch(/timingSafeEqual\(given, digest\)/);
    // Every accepted token is compared, even after a match, so the time does not tell which one matched.
    expect(coreVerifier).toMatch(/accepted\.forEach\(/);
    for (const name of ['constantTimeEqual', 'createCoreWebhookVerifier']) {
      expect(plainComparisons(`${RUNTIME_SIGNING} ${name}`, functionBody(signing, name)), name).toEqual([]);
    }
    expect(
      plainComparisons(`${CASH_SIGNING} verifyCashWebhook`, functionBody(cashSigning, 'verifyCashWebhook')),
    ).toEqual([]);
  });
});
