#!/usr/bin/env node
// paykit-codemod: codemods for paykit's dated API changes and package moves.
//   paykit-codemod money-out|domain-imports [paths…] [--write] [--json]
// Exit codes: 0 every occurrence migrated (or none found), 1 some occurrence needs a hand edit
// (listed with file and line), 2 bad usage or input.
import { parseArgs } from 'node:util';
import { migrateDomainImports } from './domain-imports.ts';
import { formatDomainImportsReport, formatMoneyOutReport } from './format.ts';
import { CodemodInputError } from './files.ts';
import { migrateMoneyOut } from './money-out.ts';

const USAGE = `usage: paykit-codemod money-out|domain-imports [paths…] [--write] [--json]
  money-out       rewrite the core client's deprecated transactions.internalTransaction(...) calls to
                  transactions.moneyOut(...) (same body; platform change of 2026-05-07), and flat
                  transfer bodies to the documented nested one (the money in transaction_request)
  domain-imports  import money, Mexico City time, CLABE, RFC and card helpers from @paykit/domain
                  instead of @paykit/runtime (splitting an import that holds both)
  paths           files or folders to migrate (default: the current folder; node_modules and dist are skipped)
  --write         apply the changes (default: a dry run that prints the diff)
  --json          print the report as JSON instead of text`;

type Codemod = (options: {
  paths: string[];
  write: boolean;
}) => Promise<{ report: { skipped: unknown[] }; text: string }>;

const CODEMODS: Record<string, Codemod> = {
  'money-out': async (options) => {
    const report = await migrateMoneyOut(options);
    return { report, text: formatMoneyOutReport(report) };
  },
  'domain-imports': async (options) => {
    const report = await migrateDomainImports(options);
    return { report, text: formatDomainImportsReport(report) };
  },
};

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { write: { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  const [command, ...paths] = parsed.positionals;
  if (parsed.values.help) {
    console.log(USAGE);
    return 0;
  }
  const codemod = command !== undefined && Object.hasOwn(CODEMODS, command) ? CODEMODS[command] : undefined;
  if (!codemod) {
    console.error(
      `${command === undefined ? 'No codemod named.' : `Unknown codemod "${command}".`} The codemods are: ${Object.keys(CODEMODS).join(', ')}.\n${USAGE}`,
    );
    return 2;
  }
  try {
    const { report, text } = await codemod({ paths, write: parsed.values.write === true });
    console.log(parsed.values.json ? JSON.stringify(report, null, 2) : text);
    return report.skipped.length > 0 ? 1 : 0;
  } catch (error) {
    if (error instanceof CodemodInputError) {
      console.error(error.message);
      return 2;
    }
    throw error;
  }
}

process.exitCode = await main(process.argv.slice(2));
