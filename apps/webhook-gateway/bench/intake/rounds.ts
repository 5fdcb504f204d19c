// Contenders take turns: each round gives every contender one slice of the phase, in an order
// that rotates, so a burst of load from elsewhere on this shared machine (another engineer's
// test run) falls on all of them alike instead of on whoever ran during it.
import type { ContenderName } from './contenders.ts';
import { okPerSecond, summarizeLatency, type LoadPlan, type LoadResult } from './load-result.ts';
import type { ContenderSession } from './session.ts';

export interface Contest {
  /** Sessions still taking load. */
  live: ContenderSession[];
  /** Why a contender left the contest, for the verdict. */
  crashed: string[];
}

const round1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '–');

function describe(result: LoadResult, p99: number): string {
  const problems = [
    result.errors > 0 ? `${result.errors} errors` : '',
    result.timeouts > 0 ? `${result.timeouts} timeouts` : '',
    ...Object.entries(result.statuses)
      .filter(([status]) => !status.startsWith('2'))
      .map(([status, n]) => `${n}× HTTP ${status}`),
  ].filter(Boolean);
  return `${Math.round(okPerSecond(result))} 2xx/s p99 ${round1(p99)} ms${problems.length ? ` (${problems.join(', ')})` : ''}`;
}

/** Runs `rounds` rounds of `plan`; returns each contender's slices in round order. A contender that dies leaves the contest. */
export async function runRounds(
  contest: Contest,
  what: string,
  rounds: number,
  plan: Pick<LoadPlan, 'mode' | 'seconds' | 'rate'>,
): Promise<Map<ContenderName, LoadResult[]>> {
  const slices = new Map<ContenderName, LoadResult[]>();
  for (let round = 0; round < rounds; round++) {
    const order = contest.live.map((_, i) => contest.live[(i + round) % contest.live.length]!);
    const line: string[] = [];
    for (const session of order) {
      const name = session.contender.name;
      try {
        const result = await session.load(plan);
        slices.set(name, [...(slices.get(name) ?? []), result]);
        line.push(`${name} ${describe(result, summarizeLatency(result.latencies).p99)}`);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        console.error(`${name}: ${message}`);
        contest.crashed.push(`${name} did not complete the ${what}: ${message.split('\n')[0]}`);
        contest.live = contest.live.filter((s) => s !== session);
      }
    }
    console.log(`  ${what}${rounds > 1 ? ` ${round + 1}/${rounds}` : ''}: ${line.join(' · ')}`);
  }
  return slices;
}
