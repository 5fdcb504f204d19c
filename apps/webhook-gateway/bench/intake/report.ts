// The verdict: the figures side by side, the gateway's ratios against both baselines, the
// targets met or MISSED, and everything else that makes the run fail (a lost delivery, a refused
// one, a contender that died).
import type { ContenderName } from './contenders.ts';
import { countStatuses } from './load-result.ts';
import { medianRatio, type PhaseFigures } from './phase-figures.ts';
import type { Audit } from './session.ts';

export const TARGETS = {
  /** Gateway peak throughput ÷ the Express receiver's. */
  vsExpress: 2,
  /** Gateway peak throughput ÷ the minimal handler's. */
  vsMinimal: 1,
  /** Gateway p99 in ms at half its own peak rate. */
  p99Ms: 50,
} as const;

export interface ContenderRun {
  name: ContenderName;
  label: string;
  peak: PhaseFigures;
  paced: PhaseFigures;
  audit: Audit;
}

export interface TargetVerdict {
  name: string;
  value: number;
  goal: string;
  met: boolean;
}

export interface Verdict {
  targets: TargetVerdict[];
  /** Reasons the run failed besides a missed target. */
  failures: string[];
  ok: boolean;
}

export function judge(runs: readonly ContenderRun[], pacedRate: number, crashed: readonly string[]): Verdict {
  const failures = [...crashed];
  for (const run of runs) {
    if (run.audit.missing > 0)
      failures.push(
        `${run.name}: ${run.audit.missing} deliveries answered 2xx are not in its database (e.g. id_msg ${run.audit.missingSample.join(', ')}).`,
      );
    for (const [phase, figures] of [
      ['peak', run.peak],
      ['paced run', run.paced],
    ] as const) {
      const refused = countStatuses(figures.statuses, 400, 500);
      // Every delivery sent is valid, authenticated, and for a known account: a 4xx is a broken set-up.
      if (refused > 0)
        failures.push(
          `${run.name}: ${refused} valid deliveries answered 4xx in the ${phase} (${JSON.stringify(figures.statuses)}).`,
        );
    }
  }
  const gateway = runs.find((run) => run.name === 'gateway');
  const targets: TargetVerdict[] = [];
  if (gateway) {
    for (const [name, goal] of [
      ['express', TARGETS.vsExpress],
      ['minimal', TARGETS.vsMinimal],
    ] as const) {
      const other = runs.find((run) => run.name === name);
      if (!other) continue;
      const value = medianRatio(gateway.peak.sliceOkPerSecond, other.peak.sliceOkPerSecond);
      targets.push({
        name: `throughput gateway / ${name} (median of per-round ratios)`,
        value,
        goal: `≥ ${goal}×`,
        met: value >= goal,
      });
    }
    targets.push({
      name: `gateway p99 at ${pacedRate} req/s (½ its peak)`,
      value: gateway.paced.latency.p99,
      goal: `< ${TARGETS.p99Ms} ms`,
      met: gateway.paced.latency.p99 < TARGETS.p99Ms,
    });
  }
  return { targets, failures, ok: failures.length === 0 && targets.every((t) => t.met) };
}

const num = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '–');
const pad = (text: string, width: number) => text.padStart(width);

function phaseCells(figures: PhaseFigures): string {
  return `${pad(String(Math.round(figures.okPerSecond)), 7)} ${pad(num(figures.latency.p50), 7)} ${pad(num(figures.latency.p99), 7)}`;
}

export function formatReport(
  runs: readonly ContenderRun[],
  verdict: Verdict,
  pacedRate: number,
  connections: number,
): string {
  const lines: string[] = [''];
  const names = runs.map((run) => `${run.name} (${run.label})`);
  const width = Math.max('contender'.length, ...names.map((name) => name.length));
  lines.push(
    `${''.padEnd(width)} ${`peak, ${connections} connections`.padEnd(23)}  ${`paced at ${pacedRate} req/s`.padEnd(23)}  audit`,
  );
  lines.push(
    `${'contender'.padEnd(width)} ${pad('2xx/s', 7)} ${pad('p50 ms', 7)} ${pad('p99 ms', 7)}  ${pad('2xx/s', 7)} ${pad('p50 ms', 7)} ${pad('p99 ms', 7)}  stored / answered 2xx`,
  );
  runs.forEach((run, index) => {
    const audit = `${run.audit.storedRows} / ${run.audit.answeredOk}${run.audit.missing > 0 ? ` (${run.audit.missing} MISSING)` : ''}`;
    lines.push(`${names[index]!.padEnd(width)} ${phaseCells(run.peak)}  ${phaseCells(run.paced)}  ${audit}`);
  });
  const share = (phase: 'peak' | 'paced') => {
    const cpu = runs.reduce((sum, run) => sum + run[phase].loaderCpuSeconds, 0);
    const seconds = runs.reduce((sum, run) => sum + run[phase].loaderWallSeconds, 0);
    return seconds > 0 ? `${Math.round((100 * cpu) / seconds)}%` : '–';
  };
  // The loader shares the machine's cores with the contender and PostgreSQL: how much it took is part of the picture.
  lines.push(
    `load generator (a second process): ${share('peak')} of one core at peak, ${share('paced')} paced (its start-up and warm-up included)`,
  );
  const gateway = runs.find((run) => run.name === 'gateway');
  if (gateway) {
    lines.push('');
    for (const other of runs.filter((run) => run !== gateway)) {
      const p99 = gateway.paced.latency.p99 / other.paced.latency.p99;
      lines.push(
        `gateway / ${other.name}: throughput ${num(medianRatio(gateway.peak.sliceOkPerSecond, other.peak.sliceOkPerSecond), 2)}× (per round: ${gateway.peak.sliceOkPerSecond.map((g, i) => num(g / (other.peak.sliceOkPerSecond[i] ?? Number.NaN), 2)).join(', ')}), p99 at the paced rate ${num(p99, 2)}×`,
      );
    }
  }
  lines.push('');
  if (verdict.targets.length === 0)
    lines.push('targets: not judged (they compare the gateway with the baselines, and the gateway did not run)');
  for (const target of verdict.targets)
    lines.push(`target ${target.name}: ${num(target.value, 2)} (${target.goal}): ${target.met ? 'met' : 'MISSED'}`);
  for (const failure of verdict.failures) lines.push(`FAILED ${failure}`);
  return lines.join('\n');
}
