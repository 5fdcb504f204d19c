// The report's arithmetic: the audit of what the sender saw against what the store holds, the
// required zeros, and the summary. (The scenarios themselves run in `pnpm test:reliability`.)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Delivery } from '@paykit/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { auditDeliveries, dedupeKeyOf } from '../src/audit.ts';
import {
  formatSummary,
  longestRestarts,
  readScenarios,
  recordScenario,
  REPORT_DIR_ENV,
  violations,
  type ReplicaFigures,
  type ScenarioFigures,
} from '../src/report.ts';

const attempt = (status: number | null, durationMs = 10, error: string | null = null) => ({
  at: '2026-11-21T00:00:00.000Z',
  status,
  error,
  durationMs,
});
const delivery = (
  eventId: string,
  attempts: Delivery['attempts'],
  product: Delivery['product'] = 'core',
): Delivery => ({
  id: `dlv_${eventId}`,
  clientId: 'c',
  product,
  eventType: 'MONEY_IN',
  eventId,
  url: 'http://x',
  state: 'delivered',
  attempts,
  nextAttemptAt: null,
  body: {},
});
const stored = (dedupeKey: string, deliveries = 1) => ({ dedupeKey, eventType: 'MONEY_IN', deliveries, applied: true });

const figures = (over: Partial<ScenarioFigures>): ScenarioFigures => ({
  scenario: 's',
  sent: 1,
  acknowledged: 1,
  stored: 1,
  applied: null,
  lost: 0,
  duplicated: 0,
  badInputs: 0,
  fiveXx: 0,
  fiveXxAllowed: false,
  longestAnswerMs: 1,
  notes: [],
  durationMs: 1,
  ...over,
});

describe('auditDeliveries', () => {
  it('counts an event acknowledged once any attempt got 2xx or 422, and lost when the store lacks it', () => {
    const audit = auditDeliveries(
      [
        delivery('a', [attempt(null, 3, 'network error ECONNRESET'), attempt(201, 40)]),
        delivery('a', [attempt(200, 12)]),
        delivery('b', [attempt(503, 4001), attempt(null, 5000, 'no answer within 5000 ms')]),
        delivery('c', [attempt(422)]),
        delivery('7:paid', [attempt(200)], 'cash'),
      ],
      [stored('core:MONEY_IN:a', 2), stored('core:MONEY_IN:c'), stored('cash:7:paid')],
    );
    expect(audit).toMatchObject({
      sent: 4,
      acknowledged: 3,
      stored: 3,
      lost: 1,
      lostAcknowledged: [],
      duplicated: 0,
      redelivered: 1,
      attempts: 7,
      unanswered: 2,
      fiveXx: 1,
      timedOut: 1,
      longestAnswerMs: 5000,
    });
  });

  it('names an acknowledged event the store lacks, and counts a key stored twice', () => {
    const audit = auditDeliveries(
      [delivery('a', [attempt(201)]), delivery('b', [attempt(201)])],
      [stored('core:MONEY_IN:b'), stored('core:MONEY_IN:b')],
    );
    expect(audit.lostAcknowledged).toEqual(['core:MONEY_IN:a']);
    expect(audit.duplicated).toBe(1);
  });

  it('keys a delivery as the gateway stores it: core by event type and id_msg, REPORT by client and file, cash by operation and event', () => {
    const of = (over: Partial<Delivery>) => dedupeKeyOf({ ...delivery('x', []), ...over });
    expect(of({ eventType: 'STATUS_UPDATE', eventId: 'AB12-cd' })).toBe('core:STATUS_UPDATE:ab12-cd');
    expect(of({ eventType: 'MONEY_IN', eventId: 'ab12' })).not.toBe(
      of({ eventType: 'STATUS_UPDATE', eventId: 'ab12' }),
    );
    expect(of({ eventType: 'REPORT', clientId: 'C-1', eventId: 'TRANSACTIONS_DAILY_2026-11-21.csv' })).toBe(
      'core:report:c-1:TRANSACTIONS_DAILY_2026-11-21.csv',
    );
    expect(of({ product: 'cash', eventType: 'paid', eventId: '7:paid' })).toBe('cash:7:paid');
  });
});

describe('the report', () => {
  const dirs: string[] = [];
  afterEach(() => {
    delete process.env[REPORT_DIR_ENV];
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('flags every required zero that is not, and allows 5xx only where the scenario says so', () => {
    expect(
      violations([figures({ scenario: 'outage', fiveXx: 9, fiveXxAllowed: true })], { outputsScanned: 5, found: 0 }),
    ).toEqual([]);
    expect(
      violations([figures({ scenario: 'crash', lost: 1, duplicated: 2, fiveXx: 3 })], { outputsScanned: 5, found: 1 }),
    ).toEqual([
      'crash: 1 event(s) lost',
      'crash: 2 event(s) duplicated',
      'crash: 3 5xx answer(s)',
      "secrets: 1 secret(s) found in the suite's outputs",
    ]);
  });

  it('flags money left stuck or orphan, conflicts not recorded, and a recovery past its bound', () => {
    const held = {
      stuck: 0,
      orphaned: 0,
      conflictsMade: 3,
      conflictsRecorded: 3,
      secondsToRecover: 4.2,
      recoverWithinSeconds: 15,
    };
    expect(violations([figures({ scenario: 'race', money: held })], null)).toEqual([]);
    expect(
      violations(
        [
          figures({
            scenario: 'race',
            money: {
              stuck: 2,
              orphaned: 1,
              conflictsMade: 3,
              conflictsRecorded: 1,
              secondsToRecover: 16,
              recoverWithinSeconds: 15,
            },
          }),
        ],
        null,
      ),
    ).toEqual([
      'race: 2 settled transfer(s) stuck in the ledger',
      'race: 1 item(s) with an owner left orphan',
      'race: 1 of 3 conflicting duplicate(s) recorded as conflicts',
      'race: recovered in 16 s, more than 15 s',
    ]);
    const text = formatSummary({
      generatedAt: '',
      scale: 'reduced',
      store: 'PGlite',
      scenarios: [figures({ scenario: 'race', money: held })],
      secrets: null,
      violations: [],
    });
    expect(text).toContain(
      'race: ledger: stuck 0, orphaned 0, conflicts recorded 3 of 3, recovered in 4.2 s (bound 15 s)',
    );
  });

  it('flags replicas whose failed deliveries were not all delivered later, or a restart past its bound', () => {
    const held: ReplicaFigures = {
      gateways: 3,
      workers: 3,
      failedDeliveries: 8,
      failedThenDelivered: 8,
      fiveXxAttempts: 0,
      unansweredAttempts: 8,
      balancerRetries: 9,
      balancerRedispatches: 190,
      appliedTwice: 0,
      restarts: [
        { process: 'gateway1', how: 'SIGKILL', seconds: 3.1 },
        { process: 'worker1', how: 'SIGKILL', seconds: 2.7 },
        { process: 'gateway1', how: 'rolling restart', seconds: 2 },
      ],
      longestSecondsByProcess: { gateway1: 3.1, worker1: 2.7 },
      backWithinSeconds: 30,
    };
    expect(violations([figures({ scenario: 'replicas', replicas: held })], null)).toEqual([]);
    expect(longestRestarts(held)).toEqual([
      { process: 'gateway1', seconds: 3.1 },
      { process: 'worker1', seconds: 2.7 },
    ]);
    const broken: ReplicaFigures = {
      ...held,
      failedThenDelivered: 6,
      restarts: [...held.restarts, { process: 'worker2', how: 'rolling restart', seconds: 31.5 }],
    };
    expect(violations([figures({ scenario: 'replicas', replicas: broken })], null)).toEqual([
      'replicas: 2 of 8 failed deliveries never delivered afterwards',
      'replicas: worker2 back in service 31.5 s after its rolling restart, more than 30 s',
    ]);
    const text = formatSummary({
      generatedAt: '',
      scale: 'reduced',
      store: 'PostgreSQL',
      scenarios: [figures({ scenario: 'replicas', replicas: held })],
      secrets: null,
      violations: [],
    });
    expect(text).toContain(
      'replicas: 3 gateways, 3 workers; 8 of 8 failed deliveries delivered afterwards (0 × 5xx, 8 without an answer); the balancer retried 9 and redispatched 190 itself; applied twice 0; 3 restarts, the longest back in service per process (bound 30 s): gateway1 3.1 s, worker1 2.7 s',
    );
  });

  it('collects what each scenario recorded and prints one row each with the verdict', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'paykit-report-test-'));
    dirs.push(dir);
    process.env[REPORT_DIR_ENV] = dir;
    recordScenario(
      figures({ scenario: 'b-outage', sent: 300, fiveXx: 20, fiveXxAllowed: true, notes: ['cut for 6 s'] }),
    );
    recordScenario(figures({ scenario: 'a-crash', sent: 300, applied: 300 }));
    const scenarios = readScenarios(dir);
    expect(scenarios.map((s) => s.scenario)).toEqual(['a-crash', 'b-outage']);
    const text = formatSummary({
      generatedAt: '',
      scale: 'reduced',
      store: 'PGlite',
      scenarios,
      secrets: { outputsScanned: 10, found: 0 },
      violations: [],
    });
    expect(text).toContain('20 (allowed)');
    expect(text).toContain('b-outage: cut for 6 s');
    expect(text).toMatch(/a-crash\s+300/);
    expect(text.split('\n').at(-1)).toBe('every required zero holds');
    expect(readScenarios(path.join(dir, 'missing'))).toEqual([]);
  });
});
