// What one load run reports back from the loader process, and the arithmetic on it.

export interface LoadPlan {
  /** closed: `connections` clients send back to back (peak). paced: `rate` requests/s on a fixed schedule. */
  mode: 'closed' | 'paced';
  url: string;
  seconds: number;
  connections: number;
  /** Requests per second, paced mode only. */
  rate?: number;
  /**
   * The loader's own warm-up, at the plan's rate or concurrency, before `seconds` are measured: a
   * fresh loader process runs its code cold, and would count its own slowness as the contender's.
   */
  warmupSeconds: number;
  /** Answers later than this count as timeouts (the platform waits 5 s, then redelivers). */
  timeoutMs: number;
  account: { clabe: string; ownerId: string };
}

export interface Latency {
  p50: number;
  p99: number;
  max: number;
  /** How many answers the percentiles are over. */
  count: number;
}

export interface LoadResult {
  mode: LoadPlan['mode'];
  /** Wall-clock seconds measured, after the warm-up (paced: from the first measured request's due time to the last answer). */
  seconds: number;
  /** Requests answered or failed in the measured time (those still in flight when a closed run stops are not counted). */
  completed: number;
  /** Answers by HTTP status. */
  statuses: Record<string, number>;
  /** Connection errors and timeouts: requests that got no answer. */
  errors: number;
  timeouts: number;
  /** Answer latency of every answer in ms, to 0.001 (paced: from the moment the schedule said to send). */
  latencies: number[];
  /** Paced only: how late the loader itself sent, p99 in ms (large = the loader could not keep the pace). */
  sendLagP99Ms?: number;
  /** CPU time the loader process used, user + system seconds: load generation shares the machine's cores. */
  loaderCpuSeconds?: number;
  /** How long the loader process ran, start-up and warm-up included. */
  loaderWallSeconds?: number;
  /** id_msg of every delivery answered 2xx in the measured time: each must be in the contender's database. */
  okIdMsgs: string[];
  /** id_msg of the deliveries answered 2xx outside it (the warm-up, or after the end): not counted, but audited too. */
  unmeasuredOkIdMsgs: string[];
}

/** What a load counts of its answers, as both loaders count them. */
export interface Tally {
  statuses: Record<string, number>;
  latencies: number[];
  errors: number;
  timeouts: number;
  okIdMsgs: string[];
  unmeasuredOkIdMsgs: string[];
}

export function createTally(): Tally {
  return { statuses: {}, latencies: [], errors: 0, timeouts: 0, okIdMsgs: [], unmeasuredOkIdMsgs: [] };
}

/**
 * Counts one request's outcome: a measured one by status (with its latency), as a timeout or as an
 * error; an unmeasured one only if it was answered 2xx (its id is audited all the same).
 */
export function tallyOutcome(
  tally: Tally,
  outcome: { kind: 'answer'; status: number } | { kind: 'error' | 'timeout' },
  idMsg: string,
  latencyMs: number,
  measured: boolean,
): void {
  const ok = outcome.kind === 'answer' && outcome.status >= 200 && outcome.status < 300;
  if (!measured) {
    if (ok) tally.unmeasuredOkIdMsgs.push(idMsg);
  } else if (outcome.kind === 'answer') {
    tally.statuses[outcome.status] = (tally.statuses[outcome.status] ?? 0) + 1;
    tally.latencies.push(toMicros(latencyMs));
    if (ok) tally.okIdMsgs.push(idMsg);
  } else if (outcome.kind === 'timeout') {
    tally.timeouts++;
  } else {
    tally.errors++;
  }
}

export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  // Nearest rank: the smallest sample with at least `fraction` of the samples at or below it.
  const rank = Math.ceil(fraction * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** Rounds ms to whole µs: enough for answer latencies, and a third of the JSON. */
export function toMicros(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

export function summarizeLatency(samples: number[]): Latency {
  const sorted = Float64Array.from(samples).sort();
  const values = Array.from(sorted);
  return {
    p50: percentile(values, 0.5),
    p99: percentile(values, 0.99),
    max: values.at(-1) ?? Number.NaN,
    count: values.length,
  };
}

/** 2xx answers per second: only accepted deliveries count as throughput. */
export function okPerSecond(result: LoadResult): number {
  return result.seconds > 0 ? result.okIdMsgs.length / result.seconds : 0;
}

/** Answers with a status in [from, to). */
export function countStatuses(statuses: Record<string, number>, from: number, to: number): number {
  let total = 0;
  for (const [status, count] of Object.entries(statuses))
    if (Number(status) >= from && Number(status) < to) total += count;
  return total;
}
