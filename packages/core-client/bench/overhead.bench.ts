// The core client's per-call overhead against raw fetch on the same sandbox operation (target:
// within 15%). Both send GET /v1/clients/{id}/webhooks with the same bearer token to the same
// sandbox process. Calls are interleaved one by one (alternating which goes first), so load from
// elsewhere on this shared machine hits both alike; the figure is the median of per-round ratios.
import { recordResult } from '@paykit/bench';
import { startSandboxProcess } from '@paykit/testing/sandbox';
import { createCoreClient } from '@paykit/core-client';

const ROUNDS = 25;
const CALLS = 300;
const TARGET = 1.15;

const sandbox = await startSandboxProcess({ manualClock: true });
try {
  const seed = await sandbox.control.getSeed();
  if (seed.status !== 200) throw new Error('cannot read the sandbox seed');
  const client0 = seed.body.core.clients[0]!;
  const credential = client0.credentials.find((c) => c.environment === 'staging')!;
  const clock = await sandbox.control.getClock();
  // The sandbox's manual clock stands still: its time, read once (the client asks on every call).
  const sandboxNow = new Date(clock.status === 200 ? clock.body.now : Date.now());
  const now = () => sandboxNow;
  const core = createCoreClient({ environment: 'sandbox', baseUrl: sandbox.urls.core, clientId: client0.clientId, apiKey: client0.apiKeys.staging, clientSecret: credential.clientSecret, now });
  const token = (await core.tokens.current()).token;
  const url = `${sandbox.urls.core}/v1/clients/${client0.clientId}/webhooks`;
  const raw = async () => {
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    if (!response.ok) throw new Error(`raw fetch: HTTP ${response.status}`);
    await response.json();
  };
  const viaClient = async () => {
    await core.webhooks.list();
  };
  const timed = async (call: () => Promise<void>) => {
    const started = performance.now();
    await call();
    return performance.now() - started;
  };
  const round = async () => {
    let rawTotal = 0;
    let clientTotal = 0;
    for (let i = 0; i < CALLS; i++) {
      if (i % 2 === 0) {
        rawTotal += await timed(raw);
        clientTotal += await timed(viaClient);
      } else {
        clientTotal += await timed(viaClient);
        rawTotal += await timed(raw);
      }
    }
    return { raw: rawTotal / CALLS, client: clientTotal / CALLS };
  };
  await round(); // warm both paths (JIT, keep-alive connections)
  const rawMs: number[] = [];
  const clientMs: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const { raw: rawMean, client: clientMean } = await round();
    rawMs.push(rawMean);
    clientMs.push(clientMean);
    ratios.push(clientMean / rawMean);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ratio = median(ratios);
  const round3 = (n: number) => Math.round(n * 1000) / 1000;
  console.log(`raw fetch (baseline): median ${round3(median(rawMs))} ms per call`);
  console.log(`core client:          median ${round3(median(clientMs))} ms per call`);
  console.log(`overhead: ${((ratio - 1) * 100).toFixed(1)}% (${ratio.toFixed(3)}× raw fetch; target within ${Math.round((TARGET - 1) * 100)}%: ${ratio <= TARGET ? 'met' : 'MISSED'})`);
  const file = await recordResult('core-client-overhead', { rounds: ROUNDS, callsPerRound: CALLS, rawMedianMs: round3(median(rawMs)), clientMedianMs: round3(median(clientMs)), ratio: round3(ratio), target: TARGET, met: ratio <= TARGET });
  console.log(`recorded in ${file}`);
  if (ratio > TARGET) process.exitCode = 1;
} finally {
  await sandbox.close();
}
