// What `pnpm start` prints: each step and check as it settles (✓/✖ and a detail), the
// reconciliation summary, and the closing count. Every result also goes to the log file.
import type { WriteStream } from 'node:fs';
import { formatMoney } from '@paykit/domain';
import type { SummaryRow } from '@paykit/ledger';

export interface Result {
  step: string;
  ok: boolean;
  detail: string;
}

export class Results {
  readonly all: Result[] = [];
  readonly #log: WriteStream;
  constructor(log: WriteStream) {
    this.#log = log;
  }

  /** Runs one step; a thrown error is its failure (paykit errors never carry a secret; their messages say what to check). */
  async check(name: string, run: () => Promise<string>): Promise<void> {
    if (process.stdout.isTTY) process.stdout.write(`  … ${name}\r`);
    try {
      this.all.push({ step: name, ok: true, detail: await run() });
    } catch (error) {
      this.all.push({ step: name, ok: false, detail: error instanceof Error ? error.message : String(error) });
    }
    const last = this.all.at(-1)!;
    console.log(`  ${last.ok ? '✓' : '✖'} ${name}  ${last.detail}`);
    this.#log.write(
      `dev | ${JSON.stringify({ time: Date.now(), msg: 'scenario step', step: name, ok: last.ok, detail: last.detail })}\n`,
    );
  }

  /** A result found without a step of its own (printed by the caller). */
  add(result: Result): void {
    this.all.push(result);
    this.#log.write(`dev | ${JSON.stringify({ time: Date.now(), msg: 'check', ...result })}\n`);
  }

  get failed(): number {
    return this.all.filter((r) => !r.ok).length;
  }
}

export function printSummary(summary: SummaryRow[]): void {
  console.log(
    '\n  reconciliation summary (day, product: matched / pending / stale / mismatched / orphan / refunded of total, match rate)',
  );
  for (const row of summary) {
    const s = row.states;
    console.log(
      `  ${row.day} ${row.product.padEnd(17)} ${s.matched.count} / ${s.pending.count} / ${s.stale.count} / ${s.mismatched.count} / ${s.orphan.count} / ${s.refunded.count} of ${row.total.count} (${formatMoney(row.total.amount, 'MXN')}), ${row.matchRate === null ? '—' : `${Math.round(row.matchRate * 100)}%`}`,
    );
  }
}

export function printOutcome(results: Results, logFile: string): void {
  const failed = results.failed;
  console.log(
    failed === 0
      ? `\nAll ${results.all.length} steps and checks passed.`
      : `\n${failed} of ${results.all.length} steps and checks failed (details above and in ${logFile}).`,
  );
}

/** Where the CLI's built-in sandbox profile looks when PAYKIT_SANDBOX_URL is unset. */
export const CLI_DEFAULT_SANDBOX_URL = 'http://127.0.0.1:4010';

/**
 * The lines another terminal pastes so that `pnpm paykit` reaches this run: its sandbox, its
 * gateway and admin token, and its store. Nothing secret is printed: the admin token is read from
 * its file, and a DATABASE_URL given to this run (which may hold a password) is named, not shown.
 */
export function pasteBlock(run: {
  sandboxUrl: string;
  gatewayUrl: string;
  /** The store's URL when printing it shows no secret (PGlite's); undefined: DATABASE_URL from the environment. */
  databaseUrl: string | undefined;
  /** The admin token's file, relative to where `pnpm start` was run; undefined: GATEWAY_ADMIN_TOKEN from the environment. */
  adminTokenFile: string | undefined;
}): string {
  return [
    '\nFor `pnpm paykit` in another terminal (from this folder), paste:',
    `  export PAYKIT_SANDBOX_URL=${run.sandboxUrl}`,
    `  export PAYKIT_GATEWAY_URL=${run.gatewayUrl}`,
    run.databaseUrl === undefined
      ? '  export DATABASE_URL=…   # the server this run uses, as set here (not printed: it may hold a password)'
      : `  export DATABASE_URL=${run.databaseUrl}`,
    run.adminTokenFile === undefined
      ? '  export GATEWAY_ADMIN_TOKEN=…   # as set here'
      : `  export GATEWAY_ADMIN_TOKEN=$(cat ${run.adminTokenFile})`,
    '',
  ].join('\n');
}
