// How many machine instructions one contender's process executes per delivery, counted by
// valgrind's callgrind: a figure that does not move with this shared machine's speed (three runs of
// one build agree within 0.2%), where throughput and CPU time move by a third from one minute to
// the next. For A/B of a change to the gateway's code; it counts user-space instructions of the
// receiver process only (no kernel, no PostgreSQL), so it is not a benchmark of the whole intake.
//
//   node --conditions=@paykit/source apps/webhook-gateway/bench/intake-instructions.ts [gateway|minimal|express]
//   DATABASE_URL (admin connection), BENCH_CONNECTIONS (64), BENCH_DELIVERIES (5000, counted),
//   BENCH_WARMUP_DELIVERIES (3000, sent first, not counted: the JIT compiles the hot paths)
//
// The receiver runs under valgrind with instrumentation off; it is switched on (callgrind_control)
// for the counted deliveries only, and their counts are dumped before it is stopped. Under valgrind the receiver is ~50× slower than the load, so
// every connection's request is waiting whenever it commits: the gateway's batches are always the
// size of BENCH_CONNECTIONS, and the count does not depend on timing.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readOneContenderOrExit, wholeNumber } from './intake/config.ts';
import { CONTENDERS } from './intake/contenders.ts';
import { createBenchDatabase } from './intake/databases.ts';
import { installInterruptHandler, onInterrupt } from './intake/interrupt.ts';
import { openConnections, type Connection } from './intake/keep-alive.ts';
import { urlPassword } from './intake/mask.ts';
import { BENCH_ACCOUNT, deliveryTarget, moneyInDelivery } from './intake/money-in.ts';
import { receiverEnv, startReceiver } from './intake/receiver-process.ts';
import { MONEY_IN_PATH } from './baselines/receiver-env.ts';

const ANSWER_TIMEOUT_MS = 120_000;

/** Sends `count` new deliveries over the connections, each sending its next when answered; any answer but 2xx stops the run. */
async function sendDeliveries(connections: Connection[], count: number): Promise<void> {
  if (count === 0) return;
  let sent = 0;
  let answered = 0;
  // The connections time a request out only when told the time.
  const clock = setInterval(() => {
    const now = performance.now();
    for (const connection of connections) connection.expire(now);
  }, 1_000);
  try {
    await new Promise<void>((resolve, reject) => {
      const next = (connection: Connection): void => {
        if (sent === count) return;
        sent++;
        connection.send(moneyInDelivery(BENCH_ACCOUNT).body, ANSWER_TIMEOUT_MS, (outcome) => {
          if (outcome.kind !== 'answer') {
            return reject(
              new Error(
                outcome.kind === 'error'
                  ? `a delivery failed: ${outcome.error.message}`
                  : `a delivery got no answer within ${ANSWER_TIMEOUT_MS / 1000} s`,
              ),
            );
          }
          if (outcome.status < 200 || outcome.status > 299)
            return reject(
              new Error(`a delivery was answered ${outcome.status}, not 2xx: the count would not be of intake`),
            );
          if (++answered === count) resolve();
          else next(connection);
        });
      };
      for (const connection of connections) next(connection);
    });
  } finally {
    clearInterval(clock);
  }
}

const { name, config } = readOneContenderOrExit();
const problems: string[] = [];
const deliveries = wholeNumber(process.env, 'BENCH_DELIVERIES', 5000, 100, 1_000_000, problems);
const warmup = wholeNumber(process.env, 'BENCH_WARMUP_DELIVERIES', 3000, 0, 1_000_000, problems);
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(2);
}
try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  console.error('valgrind is not installed: install it (apt-get install valgrind) to count instructions.');
  process.exit(2);
}
installInterruptHandler();

const contender = CONTENDERS[name];
const token = randomBytes(32).toString('base64url');
const outDir = mkdtempSync(path.join(os.tmpdir(), 'paykit-intake-instructions-'));
const database = await createBenchDatabase(config.adminUrl, name);
const forgetDatabase = onInterrupt(() => database.drop());
try {
  await contender.prepare(database.url, BENCH_ACCOUNT);
  const receiver = await startReceiver({
    label: `${contender.label} under valgrind`,
    entry: contender.entry,
    cwd: contender.cwd,
    env: receiverEnv(database.url, token),
    secrets: [token, urlPassword(config.adminUrl)],
    // Node starts in about a minute under valgrind.
    readyTimeoutMs: 300_000,
    launcher: [
      'valgrind',
      '--tool=callgrind',
      '--instr-atstart=no',
      `--callgrind-out-file=${path.join(outDir, 'callgrind.out.%p')}`,
    ],
  });
  const forgetReceiver = onInterrupt(() => receiver.stop());
  const connections = await openConnections(
    deliveryTarget(`${receiver.url}${MONEY_IN_PATH}`, token),
    config.connections,
  );
  const started = performance.now();
  try {
    await sendDeliveries(connections, warmup);
    execFileSync('callgrind_control', ['--instr=on', String(receiver.pid)], { stdio: 'ignore' });
    await sendDeliveries(connections, deliveries);
    // Written now, not at exit: a receiver slow to stop under valgrind is killed, and writes nothing.
    execFileSync('callgrind_control', ['--dump=counted', String(receiver.pid)], { stdio: 'ignore' });
  } finally {
    for (const connection of connections) connection.close();
    await receiver.stop();
    forgetReceiver();
  }
  const exit = receiver.exitedWith();
  let instructions: number | undefined;
  for (const file of readdirSync(outDir)) {
    const totals = /^totals: (\d+)$/m.exec(readFileSync(path.join(outDir, file), 'utf8'));
    if (totals) instructions = Math.max(instructions ?? 0, Number(totals[1]));
  }
  if (instructions === undefined)
    throw new Error(`callgrind wrote no counts (the receiver exited with ${exit}). Its output:\n${receiver.output()}`);
  console.log(
    `${contender.label}: ${(instructions / deliveries / 1000).toFixed(1)} k instructions per delivery ` +
      `(${deliveries} deliveries counted after ${warmup} to warm up, ${config.connections} connections; ${((performance.now() - started) / 1000).toFixed(0)} s under valgrind)`,
  );
} finally {
  await database.drop();
  forgetDatabase();
  rmSync(outDir, { recursive: true, force: true });
}
