#!/usr/bin/env node
// paykit-release: release checks for CI and for people.
//   node tooling/release/src/cli.ts check [--root DIR]   the changeset rule (changeset-check.ts) on
//     this repository or a copy of it; exit 1 with every problem listed, 0 when each change is
//     covered, 2 on bad usage or a shallow clone
import path from 'node:path';
import { parseArgs } from 'node:util';
import { checkReleaseChangesets, ReleaseCheckError } from './changeset-check.ts';
import { REPO_ROOT } from './exec.ts';

const USAGE = 'usage: paykit-release check [--root DIR]   (fails when a released file or a spec changed without a changeset)';

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { root: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help) {
    console.log(USAGE);
    return 0;
  }
  if (parsed.positionals.length !== 1 || parsed.positionals[0] !== 'check') {
    console.error(`${parsed.positionals.length === 0 ? 'No command given.' : `Unknown command "${parsed.positionals.join(' ')}".`}\n${USAGE}`);
    return 2;
  }
  try {
    const result = await checkReleaseChangesets(parsed.values.root ? path.resolve(parsed.values.root) : REPO_ROOT);
    for (const pkg of result.packages) {
      const state = pkg.changed.length === 0 ? 'released, nothing changed since' : `${pkg.changed.length} changed file(s), changeset(s): ${pkg.changesets.join(', ') || 'none'}`;
      console.log(`  ${pkg.name.padEnd(30)} ${state}`);
    }
    if (result.problems.length > 0) {
      console.error(`\nrelease check failed:\n${result.problems.map((p) => `- ${p}`).join('\n')}`);
      return 1;
    }
    console.log('release check: every change to a published package has a changeset.');
    return 0;
  } catch (error) {
    if (error instanceof ReleaseCheckError) {
      console.error(error.message);
      return 2;
    }
    throw error;
  }
}

process.exitCode = await main(process.argv.slice(2));
