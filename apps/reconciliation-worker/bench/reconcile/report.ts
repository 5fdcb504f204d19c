// The bench's verdict: the figures as a table, and each target met or MISSED.
export const TARGETS = {
  /** Events per second of reconcileOnce at the largest size. */
  eventsPerSecond: 20_000,
  /** reconcileOnce over the naive one-transaction-per-event applier. */
  speedup: 10,
  /** µs per event at the largest size over the smallest. */
  costGrowth: 1.5,
} as const;

export interface SizeRun {
  events: number;
  loadSeconds: number;
  applySeconds: number;
  batches: number;
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

export function judge(runs: readonly SizeRun[], naive: { events: number; seconds: number }): Verdict[] {
  const smallest = runs[0]!;
  const largest = runs.at(-1)!;
  const naiveRate = naive.events / naive.seconds;
  // Like for like (the same number of events) and at scale: the speed-up is the smaller of the two.
  const sameSize = runs.find((r) => r.events === naive.events) ?? smallest;
  const speedup = Math.min(sameSize.events / sameSize.applySeconds, largest.events / largest.applySeconds) / naiveRate;
  const growth =
    microsPerEvent(largest.events, largest.applySeconds) / microsPerEvent(smallest.events, smallest.applySeconds);
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
  ];
}

export function formatTable(
  runs: readonly SizeRun[],
  naive: { events: number; seconds: number },
  verdicts: readonly Verdict[],
): string {
  const pad = (value: string, width: number) => value.padStart(width);
  const lines = [
    `${'applier'.padEnd(22)}${pad('events', 11)}${pad('load s', 9)}${pad('apply s', 9)}${pad('events/s', 10)}${pad('µs/event', 10)}`,
    ...runs.map(
      (r) =>
        `${'reconcileOnce'.padEnd(22)}${pad(r.events.toLocaleString('en-US'), 11)}${pad(r.loadSeconds.toFixed(1), 9)}${pad(r.applySeconds.toFixed(2), 9)}${pad(perSecond(r.events, r.applySeconds).toLocaleString('en-US'), 10)}${pad(microsPerEvent(r.events, r.applySeconds).toFixed(1), 10)}`,
    ),
    `${'naive (1 tx / event)'.padEnd(22)}${pad(naive.events.toLocaleString('en-US'), 11)}${pad('', 9)}${pad(naive.seconds.toFixed(2), 9)}${pad(perSecond(naive.events, naive.seconds).toLocaleString('en-US'), 10)}${pad(microsPerEvent(naive.events, naive.seconds).toFixed(1), 10)}`,
    '',
    ...verdicts.map((v) => `${v.met ? 'met   ' : 'MISSED'}  ${v.name}: ${v.value} (target ${v.target})`),
  ];
  return lines.join('\n');
}
