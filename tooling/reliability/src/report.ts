// The reliability report: per scenario, what the sender sent and saw acknowledged, what the store
// holds and the worker applied, what was lost or duplicated (both must be 0), how many bad inputs
// were tried, how many 5xx answers were seen (0 outside the outage scenario) and the longest
// answer. Each scenario file writes its own figures (vitest runs files in separate workers); the
// CLI merges them into reliability-report.json and prints the summary.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const REPORT_DIR_ENV = 'PAYKIT_RELIABILITY_DIR';

export interface ScenarioFigures {
  /** "crash-gateway", "outage", … */
  scenario: string;
  /** Events the sender sent (distinct event ids), or requests for the input scenarios. */
  sent: number;
  /** Of those, answered 2xx (or 422 by policy: acknowledged and stored) at least once. */
  acknowledged: number;
  /** Distinct events in the store at the end. */
  stored: number;
  /** Events the worker applied at the end (null: the scenario runs no worker). */
  applied: number | null;
  /** Events sent but not in the store at the end, plus acknowledged ones missing: must be 0. */
  lost: number;
  /** Events stored or applied more than once: must be 0. */
  duplicated: number;
  /** Hostile or unauthenticated requests tried. */
  badInputs: number;
  /** 5xx answers seen (503 is expected only where the scenario takes the store away). */
  fiveXx: number;
  /** Whether 5xx answers are allowed here (the outage and slow-store scenarios). */
  fiveXxAllowed: boolean;
  /** The longest answer any request got, in ms. */
  longestAnswerMs: number;
  /** What else the scenario checked, in words, with figures. */
  notes: string[];
  /** The ledger's figures, where the scenario measures money rather than deliveries alone. */
  money?: MoneyFigures;
  /** Replicas behind a load balancer, killed and restarted: what the sender saw fail, and how soon each process was back. */
  replicas?: ReplicaFigures;
  durationMs: number;
}

/**
 * Several gateways behind a load balancer and several workers, killed and restarted: every
 * delivery that failed (a 5xx, or no answer: a reset, a refusal) must have been delivered 2xx
 * later, and every restarted process must be back in service within the bound.
 */
export interface ReplicaFigures {
  gateways: number;
  workers: number;
  /** Deliveries answered 5xx or not at all at least once, and how many of them were delivered 2xx afterwards (all, or a violation). */
  failedDeliveries: number;
  failedThenDelivered: number;
  /** Attempts the sender saw answered 5xx, and attempts it saw without an answer (reset, refused, cut). */
  fiveXxAttempts: number;
  unansweredAttempts: number;
  /** Requests the load balancer retried on another gateway itself (the sender never saw those fail). */
  balancerRetries: number;
  balancerRedispatches: number;
  /** Events the workers applied more than once (counted in `duplicated` too). */
  appliedTwice: number;
  /** How long each restart took, from the signal until the process was back in service. */
  restarts: { process: string; how: 'SIGKILL' | 'rolling restart'; seconds: number }[];
  /** The longest of them per process ("gateway1": 3.1), for readers of the JSON (`longestRestarts`). */
  longestSecondsByProcess: Record<string, number>;
  backWithinSeconds: number;
}

/**
 * What the ledger made of it: every figure named "required zero" must be 0; conflicts recorded
 * must equal the conflicts the scenario made; recovery must take at most its bound.
 */
export interface MoneyFigures {
  /** Settled transfers whose ledger item is not settled at the end (required zero). */
  stuck: number;
  /** Credits or status updates with an owner (a receivable, a recorded transfer) still orphan at the end (required zero). */
  orphaned: number;
  /** Conflicting duplicates the scenario sent, and how many the ledger recorded as conflicts. */
  conflictsMade?: number;
  conflictsRecorded?: number;
  /** Seconds from the fault's end until the process answered or applied again, and the bound. */
  secondsToRecover?: number;
  recoverWithinSeconds?: number;
}

export interface ReliabilityReport {
  generatedAt: string;
  scale: 'full' | 'reduced';
  store: string;
  scenarios: ScenarioFigures[];
  secrets: { outputsScanned: number; found: number } | null;
  /** Every required zero that is not: empty when the run holds its promises. */
  violations: string[];
}

/** Writes one scenario's figures where the CLI collects them (nothing when run outside it). */
export function recordScenario(figures: ScenarioFigures): void {
  const dir = process.env[REPORT_DIR_ENV];
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${figures.scenario}.json`), `${JSON.stringify(figures, null, 2)}\n`);
}

export function readScenarios(dir: string): ScenarioFigures[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((file) => file.endsWith('.json'));
  } catch {
    return [];
  }
  return files.sort().map((file) => JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as ScenarioFigures);
}

/** The promises the report checks: nothing lost, nothing duplicated, no 5xx where none may be, no secret. */
export function violations(scenarios: readonly ScenarioFigures[], secrets: ReliabilityReport['secrets']): string[] {
  const found: string[] = [];
  for (const s of scenarios) {
    if (s.lost !== 0) found.push(`${s.scenario}: ${s.lost} event(s) lost`);
    if (s.duplicated !== 0) found.push(`${s.scenario}: ${s.duplicated} event(s) duplicated`);
    if (s.fiveXx !== 0 && !s.fiveXxAllowed) found.push(`${s.scenario}: ${s.fiveXx} 5xx answer(s)`);
    if (s.money) found.push(...moneyViolations(s.scenario, s.money));
    if (s.replicas) found.push(...replicaViolations(s.scenario, s.replicas));
  }
  if (secrets && secrets.found !== 0) found.push(`secrets: ${secrets.found} secret(s) found in the suite's outputs`);
  return found;
}

function moneyViolations(scenario: string, m: MoneyFigures): string[] {
  const found: string[] = [];
  if (m.stuck !== 0) found.push(`${scenario}: ${m.stuck} settled transfer(s) stuck in the ledger`);
  if (m.orphaned !== 0) found.push(`${scenario}: ${m.orphaned} item(s) with an owner left orphan`);
  if (m.conflictsMade !== undefined && m.conflictsRecorded !== m.conflictsMade) {
    found.push(
      `${scenario}: ${m.conflictsRecorded ?? 0} of ${m.conflictsMade} conflicting duplicate(s) recorded as conflicts`,
    );
  }
  if (
    m.secondsToRecover !== undefined &&
    m.recoverWithinSeconds !== undefined &&
    !(m.secondsToRecover <= m.recoverWithinSeconds)
  ) {
    found.push(`${scenario}: recovered in ${m.secondsToRecover} s, more than ${m.recoverWithinSeconds} s`);
  }
  return found;
}

function replicaViolations(scenario: string, r: ReplicaFigures): string[] {
  const found: string[] = [];
  if (r.failedThenDelivered !== r.failedDeliveries) {
    found.push(
      `${scenario}: ${r.failedDeliveries - r.failedThenDelivered} of ${r.failedDeliveries} failed deliveries never delivered afterwards`,
    );
  }
  for (const restart of r.restarts) {
    if (!(restart.seconds <= r.backWithinSeconds)) {
      found.push(
        `${scenario}: ${restart.process} back in service ${restart.seconds} s after its ${restart.how}, more than ${r.backWithinSeconds} s`,
      );
    }
  }
  return found;
}

/** The longest restart of each process, in start order: "gateway1 1.9 s". */
export function longestRestarts(r: Pick<ReplicaFigures, 'restarts'>): { process: string; seconds: number }[] {
  const longest = new Map<string, number>();
  for (const { process, seconds } of r.restarts) longest.set(process, Math.max(longest.get(process) ?? 0, seconds));
  return [...longest].map(([process, seconds]) => ({ process, seconds }));
}

function formatReplicas(r: ReplicaFigures): string {
  const longest = longestRestarts(r)
    .map(({ process, seconds }) => `${process} ${seconds} s`)
    .join(', ');
  return [
    `${r.gateways} gateways, ${r.workers} workers`,
    `${r.failedThenDelivered} of ${r.failedDeliveries} failed deliveries delivered afterwards (${r.fiveXxAttempts} × 5xx, ${r.unansweredAttempts} without an answer)`,
    `the balancer retried ${r.balancerRetries} and redispatched ${r.balancerRedispatches} itself`,
    `applied twice ${r.appliedTwice}`,
    `${r.restarts.length} restarts, the longest back in service per process (bound ${r.backWithinSeconds} s): ${longest || 'none'}`,
  ].join('; ');
}

function formatMoney(m: MoneyFigures): string {
  const parts = [`stuck ${m.stuck}`, `orphaned ${m.orphaned}`];
  if (m.conflictsMade !== undefined) parts.push(`conflicts recorded ${m.conflictsRecorded ?? 0} of ${m.conflictsMade}`);
  if (m.secondsToRecover !== undefined)
    parts.push(`recovered in ${m.secondsToRecover} s (bound ${m.recoverWithinSeconds ?? '-'} s)`);
  return `ledger: ${parts.join(', ')}`;
}

const COLUMNS = [
  'scenario',
  'sent',
  'acked',
  'stored',
  'applied',
  'lost',
  'dup',
  'bad inputs',
  '5xx',
  'longest ms',
] as const;

/** The readable summary: one row per scenario, then the notes and the verdict. */
export function formatSummary(report: ReliabilityReport): string {
  const rows = report.scenarios.map((s) => [
    s.scenario,
    String(s.sent),
    String(s.acknowledged),
    String(s.stored),
    s.applied === null ? '-' : String(s.applied),
    String(s.lost),
    String(s.duplicated),
    String(s.badInputs),
    s.fiveXxAllowed ? `${s.fiveXx} (allowed)` : String(s.fiveXx),
    String(Math.round(s.longestAnswerMs)),
  ]);
  const widths = COLUMNS.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const out = [`reliability (${report.scale}, store: ${report.store})`, line(COLUMNS), ...rows.map(line)];
  for (const s of report.scenarios) {
    if (s.money) out.push(`  ${s.scenario}: ${formatMoney(s.money)}`);
    if (s.replicas) out.push(`  ${s.scenario}: ${formatReplicas(s.replicas)}`);
    for (const note of s.notes) out.push(`  ${s.scenario}: ${note}`);
  }
  if (report.secrets)
    out.push(`secrets: ${report.secrets.outputsScanned} outputs scanned, ${report.secrets.found} secret(s) found`);
  out.push(
    report.violations.length === 0
      ? 'every required zero holds'
      : `VIOLATED:\n${report.violations.map((v) => `  - ${v}`).join('\n')}`,
  );
  return out.join('\n');
}
