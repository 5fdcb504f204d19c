// The bench's verdict: the figures as a table, and each target met or MISSED.
export const TARGETS = {
  /** Events per second of reconcileOnce at the largest size. */
  eventsPerSecond: 25_000,
  /** reconcileOnce over the naive one-transaction-per-event applier. */
  speedup: 50,
  /** µs per event at the largest size over the smallest. */
  costGrowth: 1.2,
  /** µs per event with no statistics and no autovacuum over the same size analysed. */
  noStatistics: 1.2,
  /** Three workers' time over one worker's, on the same events: never slower. */
  threeWorkers: 1,
} as const;

export interface SizeRun {
  events: number;
  loadSeconds: number;
  applySeconds: number;
  batches: number;
}

/** The runs at the check size that are compared with the single worker's run of that size. */
export interface CheckRuns {
  events: number;
  threeWorkersSeconds: number;
  noStatisticsSeconds: number;
}

export interface Verdict {
  name: string;
  value: number;
  target: string;
  met: boolean;
}

export const perSecond = (events: number, seconds: number): number => Math.round(events / seconds);
export const microsPerEvent = (events: number, seconds: number): number =>
  Math.round((seconds * 1e6 * 100) / events) / 100;

export function judge(
  runs: readonly SizeRun[],
  naive: { events: number; seconds: number },
  checks: CheckRuns,
): Verdict[] {
  const smallest = runs[0]!;
  const largest = runs.at(-1)!;
  const naiveRate = naive.events / naive.seconds;
  // Like for like (the same number of events) and at scale: the speed-up is the smaller of the two.
  const sameSize = runs.find((r) => r.events === naive.events) ?? smallest;
  const speedup = Math.min(sameSize.events / sameSize.applySeconds, largest.events / largest.applySeconds) / naiveRate;
  const growth =
    microsPerEvent(largest.events, largest.applySeconds) / microsPerEvent(smallest.events, smallest.applySeconds);
  const single = runs.find((r) => r.events === checks.events);
  if (single === undefined) throw new Error(`no run of ${checks.events} events to compare the checks with`);
  const threeWorkers = checks.threeWorkersSeconds / single.applySeconds;
  const noStatistics = checks.noStatisticsSeconds / single.applySeconds;
  const size = checks.events.toLocaleString('en-US');
  return [
    {
      name: `events/s at ${largest.events.toLocaleString('en-US')}`,
      value: perSecond(largest.events, largest.applySeconds),
      target: `≥ ${TARGETS.eventsPerSecond.toLocaleString('en-US')}`,
      met: largest.events / largest.applySeconds >= TARGETS.eventsPerSecond,
    },
    {
      name: 'speed-up over the naive applier',
      value: Math.round(speedup * 10) / 10,
      target: `≥ ${TARGETS.speedup}×`,
      met: speedup >= TARGETS.speedup,
    },
    {
      name: `cost per event, ${largest.events.toLocaleString('en-US')} / ${smallest.events.toLocaleString('en-US')}`,
      value: Math.round(growth * 100) / 100,
      target: `≤ ${TARGETS.costGrowth}×`,
      met: growth <= TARGETS.costGrowth,
    },
    {
      name: `cost per event at ${size}, no statistics / analysed`,
      value: Math.round(noStatistics * 100) / 100,
      target: `≤ ${TARGETS.noStatistics}×`,
      met: noStatistics <= TARGETS.noStatistics,
    },
    {
      name: `time at ${size}, three workers / one`,
      value: Math.round(threeWorkers * 100) / 100,
      target: `≤ ${TARGETS.threeWorkers}×`,
      met: threeWorkers <= TARGETS.threeWorkers,
    },
  ];
}

export function formatTable(
  runs: readonly SizeRun[],
  naive: { events: number; seconds: number },
  checks: CheckRuns,
  verdicts: readonly Verdict[],
): string {
  const pad = (value: string, width: number) => value.padStart(width);
  const row = (applier: string, events: number, load: string, seconds: number) =>
    `${applier.padEnd(22)}${pad(events.toLocaleString('en-US'), 11)}${pad(load, 9)}${pad(seconds.toFixed(2), 9)}${pad(perSecond(events, seconds).toLocaleString('en-US'), 10)}${pad(microsPerEvent(events, seconds).toFixed(1), 10)}`;
  const lines = [
    `${'applier'.padEnd(22)}${pad('events', 11)}${pad('load s', 9)}${pad('apply s', 9)}${pad('events/s', 10)}${pad('µs/event', 10)}`,
    ...runs.map((r) => row('reconcileOnce', r.events, r.loadSeconds.toFixed(1), r.applySeconds)),
    row('three workers at once', checks.events, '', checks.threeWorkersSeconds),
    row('no statistics', checks.events, '', checks.noStatisticsSeconds),
    row('naive (1 tx / event)', naive.events, '', naive.seconds),
    '',
    ...verdicts.map((v) => `${v.met ? 'met   ' : 'MISSED'}  ${v.name}: ${v.value} (target ${v.target})`),
  ];
  return lines.join('\n');
}
