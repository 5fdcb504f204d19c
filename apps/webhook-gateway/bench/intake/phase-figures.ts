// A phase (peak or paced) of one contender is several slices, one per round: its figures pool the
// slices (answers, statuses, every latency sample) and keep each slice's rate for per-round ratios.
import { summarizeLatency, type Latency, type LoadResult } from './load-result.ts';

export interface PhaseFigures {
  seconds: number;
  /** Deliveries answered 2xx. */
  ok: number;
  okPerSecond: number;
  /** 2xx/s of each slice, in round order. */
  sliceOkPerSecond: number[];
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  latency: Latency;
  /** Paced: the worst slice's p99 of how late the loader sent. */
  sendLagP99Ms?: number;
  loaderCpuSeconds: number;
  /** How long the loader processes ran, start-up and warm-up included (what their CPU time is spread over). */
  loaderWallSeconds: number;
}

export function combineSlices(slices: readonly LoadResult[]): PhaseFigures {
  const statuses: Record<string, number> = {};
  let seconds = 0;
  let ok = 0;
  let errors = 0;
  let timeouts = 0;
  let loaderCpuSeconds = 0;
  let loaderWallSeconds = 0;
  let sendLagP99Ms: number | undefined;
  const latencies: number[] = [];
  for (const slice of slices) {
    seconds += slice.seconds;
    ok += slice.okIdMsgs.length;
    errors += slice.errors;
    timeouts += slice.timeouts;
    loaderCpuSeconds += slice.loaderCpuSeconds ?? 0;
    loaderWallSeconds += slice.loaderWallSeconds ?? 0;
    for (const [status, count] of Object.entries(slice.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
    for (const latency of slice.latencies) latencies.push(latency);
    if (slice.sendLagP99Ms !== undefined) sendLagP99Ms = Math.max(sendLagP99Ms ?? 0, slice.sendLagP99Ms);
  }
  return {
    seconds,
    ok,
    okPerSecond: seconds > 0 ? ok / seconds : 0,
    sliceOkPerSecond: slices.map((slice) => (slice.seconds > 0 ? slice.okIdMsgs.length / slice.seconds : 0)),
    statuses,
    errors,
    timeouts,
    latency: summarizeLatency(latencies),
    ...(sendLagP99Ms === undefined ? {} : { sendLagP99Ms }),
    loaderCpuSeconds,
    loaderWallSeconds,
  };
}

/** The median of per-round ratios a/b: a burst of load from elsewhere on the machine skews one round, not the verdict. */
export function medianRatio(a: readonly number[], b: readonly number[]): number {
  const ratios: number[] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++)
    ratios.push(b[i]! > 0 ? a[i]! / b[i]! : Number.POSITIVE_INFINITY);
  if (ratios.length === 0) return Number.NaN;
  ratios.sort((x, y) => x - y);
  const middle = Math.floor(ratios.length / 2);
  return ratios.length % 2 === 1 ? ratios[middle]! : (ratios[middle - 1]! + ratios[middle]!) / 2;
}
