#!/usr/bin/env node
// paykit-reconcile: the worker's one-off commands (the `paykit` CLI calls the same store functions).
//   run --once                 apply every waiting event, print the summary, exit
//   reports import FILE        import a report file (named as its REPORT event's file_name)
//   parked list | parked retry [SEQ...]
//   summary [--from DAY] [--to DAY]
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ReportFormatError } from '@paykit/contracts';
import {
  allParked,
  importReport,
  ledgerMigrations,
  reconcileOnce,
  reconciliationSummary,
  retryParked,
} from '@paykit/ledger';
import { storeOptions } from '@paykit/service';
import { migrate, openDatabase, StoreInputError, withLongStatements } from '@paykit/store';
import { ConfigError, loadConfig } from './config.ts';

const USAGE =
  'usage: paykit-reconcile run --once | reports import FILE | parked list | parked retry [SEQ...] | summary [--from YYYY-MM-DD] [--to YYYY-MM-DD]';

async function main(args: string[]): Promise<number> {
  const config = loadConfig();
  const [command, sub, ...rest] = args;
  if (command === undefined || !['run', 'reports', 'parked', 'summary'].includes(command)) {
    console.error(USAGE);
    return 2;
  }
  if (command === 'run' && sub !== '--once') {
    console.error(
      'run needs --once here; the continuous worker is `pnpm --filter @paykit/reconciliation-worker start`',
    );
    return 2;
  }
  const databaseOptions = storeOptions(config);
  const db = await openDatabase(databaseOptions);
  try {
    await withLongStatements(db, databaseOptions, (long) => migrate(long, [ledgerMigrations]));
    if (command === 'run') {
      const result = await reconcileOnce(db, { batchSize: config.batchSize, leaseSeconds: config.leaseSeconds });
      console.log(`applied ${result.applied} events in ${result.batches} batches; parked ${result.parked}`);
      printSummary(await reconciliationSummary(db, { staleAfterSeconds: config.staleAfterSeconds }));
      return 0;
    }
    if (command === 'reports' && sub === 'import' && rest.length === 1) {
      const file = rest[0]!;
      const result = await importReport(db, path.basename(file), await readFile(file, 'utf8'));
      const said = result.imported
        ? `imported ${result.lines} lines of ${result.fileName}${result.eventSeq ? ` (REPORT event #${result.eventSeq})` : ' (no REPORT event for it yet)'}`
        : result.duplicateOf !== null
          ? `${result.fileName} already imported as ${result.duplicateOf} (same content, ${result.lines} lines); nothing changed`
          : `${result.fileName} was already imported (${result.lines} lines); nothing changed`;
      console.log(said);
      return 0;
    }
    if (command === 'parked' && sub === 'list') {
      for await (const p of allParked(db))
        console.log(`#${p.seq} ${p.eventType} attempts=${p.attempts}${p.retry ? ' (retry queued)' : ''}: ${p.reason}`);
      return 0;
    }
    if (command === 'parked' && sub === 'retry') {
      console.log(`${await retryParked(db, rest.length > 0 ? rest : undefined)} parked events queued for the next run`);
      return 0;
    }
    if (command === 'summary') {
      const option = (name: string) => {
        const i = args.indexOf(name);
        return i >= 0 ? args[i + 1] : undefined;
      };
      printSummary(
        await reconciliationSummary(db, {
          staleAfterSeconds: config.staleAfterSeconds,
          from: option('--from'),
          to: option('--to'),
        }),
      );
      return 0;
    }
    console.error(USAGE);
    return 2;
  } finally {
    await db.close();
  }
}

function printSummary(rows: Awaited<ReturnType<typeof reconciliationSummary>>): void {
  for (const r of rows) {
    const states = Object.entries(r.states)
      .filter(([, f]) => f.count > 0)
      .map(([s, f]) => `${s} ${f.count} (${f.amount})`)
      .join(', ');
    console.log(
      `${r.day} ${r.product.padEnd(16)} ${String(r.total.count).padStart(6)} items ${r.total.amount.padStart(14)} MXN  match ${r.matchRate === null ? '—' : `${(r.matchRate * 100).toFixed(1)}%`}  ${states}`,
    );
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof ConfigError || error instanceof ReportFormatError || error instanceof StoreInputError) {
    console.error(
      error instanceof ReportFormatError
        ? `The report was not imported (nothing was): ${error.message}`
        : error.message,
    );
    process.exitCode = 2;
  } else {
    console.error(`paykit-reconcile failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
