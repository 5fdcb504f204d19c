#!/usr/bin/env node
// `paykit`: see `paykit --help`. Exit codes: 0 ok, 1 the operation failed, 2 wrong usage.
import { CommanderError } from 'commander';
import { EXIT_OK, EXIT_USAGE } from './cli/errors.ts';
import { buildProgram, helpOnlyForKnownCommands } from './program.ts';

const program = buildProgram();
const json = process.argv.includes('--json');

try {
  await program.parseAsync(helpOnlyForKnownCommands(program, process.argv));
  // A command that finished but reports something for a person (migrate's skipped calls) set 1.
  process.exitCode ??= EXIT_OK;
} catch (error) {
  if (error instanceof CommanderError) {
    // Help and --version print and exit 0; anything else commander refuses is wrong usage.
    process.exitCode = error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
  } else {
    const { report } = await import('./cli/report-error.ts');
    process.exitCode = report(error, json);
  }
}
