// One process of the token storm (scenarios/token-storm.scenario.ts): a core client with its own
// in-memory token cache, whose clock is whatever the parent says the sandbox clock is (so the
// parent decides when the client believes its token expired, and can let it lag to force a 401).
// Over IPC: `{ calls, now }` fires that many concurrent webhook lists at once and answers with a
// StormResult. Started by startStormProcess (scenarios/token-storm.scenario.ts); exits when the parent disconnects.
import { ApiError } from '@paykit/runtime';
import { createCoreClient } from '@paykit/core-client';

export interface StormRequest {
  /** Concurrent calls to fire. */
  calls: number;
  /** The client's clock for this storm (ISO 8601). */
  now: string;
}

export interface StormResult {
  ok: number;
  failed: number;
  /** 5xx answers among the failures. */
  fiveXx: number;
  /** The first few failures, `name: message` (client errors carry no secret). */
  failures: string[];
  longestMs: number;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value)
    throw new Error(
      `${name} is not set: start this script through startStormProcess (tooling/reliability/scenarios/token-storm.scenario.ts), which passes it.`,
    );
  return value;
}

let now = new Date(required('STORM_NOW'));
const core = createCoreClient({
  environment: 'sandbox',
  baseUrl: required('STORM_CORE_URL'),
  clientId: required('STORM_CLIENT_ID'),
  apiKey: required('STORM_API_KEY'),
  now: () => now,
});

async function storm(calls: number): Promise<StormResult> {
  const durations: number[] = [];
  const failures: string[] = [];
  let fiveXx = 0;
  // Every call is started in this one tick, before any answer: a true storm on the token cache.
  await Promise.all(
    Array.from({ length: calls }, async () => {
      const started = performance.now();
      try {
        await core.webhooks.list();
        durations.push(performance.now() - started);
      } catch (error) {
        if (error instanceof ApiError && error.status >= 500) fiveXx++;
        failures.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
      }
    }),
  );
  return {
    ok: durations.length,
    failed: failures.length,
    fiveXx,
    failures: failures.slice(0, 5),
    longestMs: Math.max(0, ...durations),
  };
}

process.on('message', (request: StormRequest) => {
  now = new Date(request.now);
  void storm(request.calls).then((result) => process.send?.(result));
});
process.once('disconnect', () => process.exit(0));
process.send?.('ready');
