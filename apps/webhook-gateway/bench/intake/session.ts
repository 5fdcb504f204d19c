// One contender for the length of the bench: its fresh database, its process, every load run
// against it, and at the end the audit (every delivery answered 2xx must be in its database),
// then the process stopped and the database dropped whatever happened.
import type { BenchConfig } from './config.ts';
import type { Contender } from './contenders.ts';
import { checkpoint, createBenchDatabase, type BenchDatabase } from './databases.ts';
import { onInterrupt } from './interrupt.ts';
import { runLoad } from './load.ts';
import type { LoadPlan, LoadResult } from './load-result.ts';
import type { BenchAccount } from './money-in.ts';
import { MONEY_IN_PATH } from '../baselines/receiver-env.ts';
import { receiverEnv, startReceiver, type ReceiverProcess } from './receiver-process.ts';

/** The platform waits 5 s for an answer, then redelivers: a later answer is no answer. */
const ANSWER_TIMEOUT_MS = 5_000;
const READY_TIMEOUT_MS = 30_000;
/** Each load's loader process runs this long before it measures (its answers are audited all the same). */
const LOADER_WARMUP_SECONDS = 1;

export interface Audit {
  answeredOk: number;
  storedRows: number;
  /** Answered 2xx but not in the database: a lost acknowledged delivery. */
  missing: number;
  missingSample: string[];
}

export interface SessionContext {
  config: BenchConfig;
  token: string;
  account: BenchAccount;
  secrets: readonly string[];
}

export interface ContenderSession {
  contender: Contender;
  url: string;
  /** One load against this contender; rejects if the contender died meanwhile. */
  load(plan: Pick<LoadPlan, 'mode' | 'seconds' | 'rate'>): Promise<LoadResult>;
  /** Stops the process, audits its database, drops it. */
  finish(): Promise<Audit>;
}

export async function openSession(contender: Contender, context: SessionContext): Promise<ContenderSession> {
  const { config, token, account } = context;
  const database: BenchDatabase = await createBenchDatabase(config.adminUrl, contender.name);
  const forgetDatabase = onInterrupt(() => database.drop());
  let receiver: ReceiverProcess;
  try {
    await contender.prepare(database.url, account);
    receiver = await startReceiver({
      label: contender.label,
      entry: contender.entry,
      cwd: contender.cwd,
      env: receiverEnv(database.url, token),
      secrets: context.secrets,
      readyTimeoutMs: READY_TIMEOUT_MS,
    });
  } catch (error) {
    await database.drop();
    forgetDatabase();
    throw error;
  }
  const running = receiver;
  const forgetReceiver = onInterrupt(() => running.stop());
  const url = `${running.url}${MONEY_IN_PATH}`;
  const answered: string[] = [];
  let checkpointWarned = false;

  return {
    contender,
    url: running.url,
    async load(plan) {
      const notCheckpointed = await checkpoint(config.adminUrl);
      if (notCheckpointed !== undefined && !checkpointWarned) {
        checkpointWarned = true;
        console.warn(
          `note: no CHECKPOINT before each load (${notCheckpointed}); the WAL of one load may be flushed during the next`,
        );
      }
      const result = await runLoad(
        {
          ...plan,
          url,
          connections: config.connections,
          timeoutMs: ANSWER_TIMEOUT_MS,
          warmupSeconds: LOADER_WARMUP_SECONDS,
          account,
        },
        token,
      );
      // Counted before the liveness check: what it acknowledged before dying must be stored too.
      // not push(...ids): 100k arguments overflow the stack
      for (const id of result.okIdMsgs) answered.push(id);
      for (const id of result.unmeasuredOkIdMsgs) answered.push(id);
      const exit = running.exitedWith();
      if (exit !== undefined)
        throw new Error(
          `${contender.label} exited (${exit}) during a ${plan.mode} load. Its output:\n${running.output()}`,
        );
      return result;
    },
    async finish() {
      try {
        // Stopped before the audit: what counts is what is durably there once the process is gone.
        await running.stop();
        forgetReceiver();
        const stored = await contender.storedIdMsgs(database.url);
        const missing = answered.filter((id) => !stored.has(id));
        return {
          answeredOk: answered.length,
          storedRows: stored.size,
          missing: missing.length,
          missingSample: missing.slice(0, 5),
        };
      } finally {
        await running.stop();
        await database.drop();
        forgetDatabase();
      }
    },
  };
}
