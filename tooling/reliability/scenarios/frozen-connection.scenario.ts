// 7. A frozen connection. PostgreSQL sits behind a TCP proxy between it and the gateway and
// worker; during a stream of credits the proxy stops forwarding in both directions without closing
// or resetting anything (a firewall or NAT that dropped its state) for 60 s (12 s reduced), then
// forwards again, the frozen connections lost for good. The gateway answers 503 within 5 s while
// frozen and /readyz says so; within 15 s of the thaw it answers 2xx again; the worker's /healthz
// never says caughtUp meanwhile and it resumes by itself within 30 s; everything redelivered is
// stored once and applied once. Needs a PostgreSQL server (DATABASE_URL).
import { CORE_EVENT_PATHS } from '@paykit/contracts';
import { TEST_SECRETS } from '@paykit/testing/secret-audit';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { auditDeliveries, deliveryFigures } from '../src/audit.ts';
import { coreEvent } from '../src/fuzz/events.ts';
import { sendCredits, sleep, until } from '../src/load.ts';
import { recordScenario } from '../src/report.ts';
import { scaled } from '../src/scale.ts';
import { startStack, type Stack } from '../src/stack.ts';

const PLATFORM_TIMEOUT_MS = 5_000;
const GATEWAY_RECOVER_WITHIN_S = 15;
const WORKER_RECOVER_WITHIN_S = 30;

interface WorkerHealth {
  applied: number;
  caughtUp: boolean;
  waiting: number | null;
  lastAttemptFailed: boolean;
  storeError: string | null;
  lastSuccessAt: string | null;
}

describe.skipIf(!process.env.DATABASE_URL)(
  'a frozen connection to PostgreSQL (behind a proxy that stops forwarding)',
  () => {
    let stack: Stack | undefined;
    afterEach(async () => {
      stack?.proxy?.thaw();
      await stack?.close();
      stack = undefined;
    });

    it('frozen connection: 503 within 5 s while frozen, 2xx within 15 s of the thaw, the worker resumes by itself, nothing lost or doubled', async () => {
      const events = scaled(1_200, 240);
      const freezeMs = scaled(60_000, 12_000);
      const startedAt = performance.now();
      stack = await startStack({ name: 'frozen', proxy: true });
      const { gatewayUrl } = stack;
      await stack.sandbox.control.setFaults({ body: { deliveries: { concurrency: 4 } } });
      const worker = await stack.startWorker({ WORKER_BATCH_SIZE: '50' });
      const workerHealth = async (): Promise<WorkerHealth> =>
        (await (
          await fetch(`${worker.url}/healthz`, { signal: AbortSignal.timeout(PLATFORM_TIMEOUT_MS) })
        ).json()) as WorkerHealth;

      // A delivery of our own, stored before the freeze: sent again, it is a duplicate whose answer
      // still needs a commit, so a 2xx proves the gateway commits again without adding an event.
      // An external credit (201), so the ledger counts it with the others.
      const sampled = JSON.parse(JSON.stringify(fc.sample(coreEvent('MONEY_IN'), 1)[0])) as {
        body: Record<string, unknown>;
      };
      const probe = JSON.stringify({ ...sampled, body: { ...sampled.body, sub_category: 'SPEI_CREDIT' } });
      const deliverProbe = async () => {
        const started = performance.now();
        try {
          const answer = await fetch(`${gatewayUrl}${CORE_EVENT_PATHS.MONEY_IN}`, {
            method: 'POST',
            body: probe,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_SECRETS.coreWebhookToken}` },
            signal: AbortSignal.timeout(PLATFORM_TIMEOUT_MS * 2),
          });
          await answer.arrayBuffer();
          return { status: answer.status, ms: performance.now() - started };
        } catch {
          return { status: 0, ms: performance.now() - started };
        }
      };
      expect((await deliverProbe()).status).toBe(201);

      const load = sendCredits(stack, events, 4);
      await until(() => load.sent >= events / 3, 'a third of the credits being sent');
      stack.proxy!.freeze();
      const frozenAt = performance.now();
      const sentBefore = load.sent;
      // While frozen: the probe, /readyz and the worker's /healthz, every half second.
      const during: Array<{
        probe: number;
        probeMs: number;
        ready: number;
        caughtUp: boolean;
        waiting: number | null;
      }> = [];
      while (performance.now() - frozenAt < freezeMs) {
        const [answer, ready, health] = await Promise.all([
          deliverProbe(),
          fetch(`${gatewayUrl}/readyz`, { signal: AbortSignal.timeout(PLATFORM_TIMEOUT_MS) }).then(
            (r) => r.status,
            () => 0,
          ),
          workerHealth().catch(() => undefined),
        ]);
        during.push({
          probe: answer.status,
          probeMs: answer.ms,
          ready,
          caughtUp: health?.caughtUp ?? false,
          waiting: health?.waiting ?? null,
        });
        await sleep(500);
      }
      const appliedAtThaw = (await workerHealth()).applied;
      stack.proxy!.thaw({ frozen: 'lost' });
      const thawedAt = performance.now();
      const sentDuring = load.sent - sentBefore;

      // Recovery, measured from the thaw: the gateway commits again (the probe answered 2xx), the
      // worker completes a round again (its last attempt no longer failed, the store answers it).
      let gatewaySeconds: number | undefined;
      let workerSeconds: number | undefined;
      while ((gatewaySeconds === undefined || workerSeconds === undefined) && performance.now() - thawedAt < 90_000) {
        const [answer, health] = await Promise.all([
          gatewaySeconds === undefined ? deliverProbe() : undefined,
          workerSeconds === undefined ? workerHealth().catch(() => undefined) : undefined,
        ]);
        const seconds = (performance.now() - thawedAt) / 1000;
        if (answer && answer.status >= 200 && answer.status < 300) gatewaySeconds = seconds;
        if (
          health &&
          !health.lastAttemptFailed &&
          health.storeError === null &&
          health.lastSuccessAt !== null &&
          Date.parse(health.lastSuccessAt) > Date.now() - (performance.now() - thawedAt)
        ) {
          workerSeconds = seconds;
        }
        await sleep(100);
      }

      await load.done;
      await stack.drainDeliveries(scaled(240_000, 90_000));
      await stack.workerCaughtUp(scaled(120_000, 60_000));
      const appliedByWorker = (await workerHealth()).applied;
      const stored = await stack.storedEvents();
      const audit = auditDeliveries(await stack.deliveries(), stored);
      const ledger = await stack.withStore(async (db) =>
        Number((await db.query<{ n: string }>('SELECT count(*)::text AS n FROM ledger_credits')).rows[0]!.n),
      );
      const applied = stored.filter((event) => event.applied).length;
      const frozenProbes = during.map((d) => d.probe);
      // The money figures: nothing stuck unapplied, no owned credit orphaned (these credits have no
      // owner: none can be), and the time to recover against its bound.
      recordScenario({
        ...deliveryFigures('frozen-connection', audit, {
          startedAt,
          applied,
          fiveXxAllowed: true,
          notes: [
            `PostgreSQL frozen (no reset, no error) for ${((thawedAt - frozenAt) / 1000).toFixed(1)} s while ${sentDuring} credits were triggered; the probe delivery answered ${frozenProbes.filter((s) => s === 503).length}×503 of ${during.length}, the slowest in ${Math.round(Math.max(...during.map((d) => d.probeMs)))} ms; /readyz answered ${during.filter((d) => d.ready === 503).length}×503 of ${during.length}; the worker's /healthz said caughtUp ${during.filter((d) => d.caughtUp).length} times`,
            `after the thaw (frozen connections lost for good): the gateway committed again in ${gatewaySeconds?.toFixed(1) ?? 'never'} s (bound ${GATEWAY_RECOVER_WITHIN_S} s), the worker completed a round again in ${workerSeconds?.toFixed(1) ?? 'never'} s (bound ${WORKER_RECOVER_WITHIN_S} s); it applied ${appliedByWorker - appliedAtThaw} events after the thaw, ${applied} stored events applied, ${ledger} credits in the ledger`,
          ],
        }),
        money: {
          stuck: stored.length - applied,
          orphaned: 0,
          secondsToRecover: Number((gatewaySeconds ?? Infinity).toFixed(1)),
          recoverWithinSeconds: GATEWAY_RECOVER_WITHIN_S,
        },
      });

      expect(audit.lostAcknowledged).toEqual([]);
      expect(audit.lost).toBe(0);
      expect(audit.duplicated).toBe(0);
      expect(audit.sent).toBe(events);
      // While frozen: 503 within the platform's 5 s, /readyz says so, the worker never claims to be caught up.
      expect(frozenProbes.filter((status) => status !== 503)).toEqual([]);
      expect(Math.max(...during.map((d) => d.probeMs))).toBeLessThan(PLATFORM_TIMEOUT_MS);
      expect(during.map((d) => d.ready)).toContain(503);
      expect(during.filter((d) => d.caughtUp)).toEqual([]);
      expect(audit.timedOut).toBe(0);
      expect(audit.longestAnswerMs).toBeLessThan(PLATFORM_TIMEOUT_MS);
      // After: back by themselves within their bounds, everything applied once (the probe too).
      expect(gatewaySeconds).toBeLessThan(GATEWAY_RECOVER_WITHIN_S);
      expect(workerSeconds).toBeLessThan(WORKER_RECOVER_WITHIN_S);
      expect(applied).toBe(stored.length);
      expect(ledger).toBe(events + 1);
    });
  },
);
