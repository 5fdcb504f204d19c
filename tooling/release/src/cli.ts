#!/usr/bin/env node
// paykit-release: release checks for CI and for people.
//   node tooling/release/src/cli.ts check [--root DIR]   the changeset rule (changeset-check.ts) on
//     this repository or a copy of it; exit 1 with every problem listed, 0 when each change is
//     covered, 2 on bad usage or a shallow clone
//   node tooling/release/src/cli.ts api-diff [--write FILE] [--root DIR]   each client's API
//     changes since its release (api-diff.ts); with --write, adds them to the changeset FILE for
//     every package it names, so the CHANGELOG says what changed in the API
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { formatSpecDiff } from './api-diff.ts';
import { checkReleaseChangesets, ReleaseCheckError, type ReleaseCheckResult } from './changeset-check.ts';
import { parseChangeset } from './pending-changesets.ts';
import { REPO_ROOT } from './exec.ts';

const USAGE = `usage: paykit-release check [--root DIR]                    fail when a released file or a spec changed without a changeset of the level its API change needs
       paykit-release api-diff [--write FILE] [--root DIR]   each client's API changes since its release; --write adds them to the changeset FILE`;

/** Adds (or replaces) the API section of every package the changeset names; returns what it wrote. */
function writeApiDiff(root: string, file: string, result: ReleaseCheckResult): string[] {
  const full = path.resolve(root, file);
  let text = readFileSync(full, 'utf8');
  const named = parseChangeset(file, text).releases;
  const written: string[] = [];
  for (const pkg of result.packages) {
    if (!(pkg.name in named) || !pkg.api || pkg.api.diff.level === null) continue;
    const section = formatSpecDiff(pkg.api.spec, pkg.api.diff);
    const heading = `API changes in ${pkg.api.spec} (`;
    const at = text.indexOf(heading);
    if (at >= 0) {
      const end = text.indexOf('\n\n', at);
      text = `${text.slice(0, at)}${section}${end >= 0 ? text.slice(end) : '\n'}`;
    } else {
      text = `${text.trimEnd()}\n\n${section}\n`;
    }
    written.push(pkg.name);
  }
  writeFileSync(full, text);
  return written;
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { root: { type: 'string' }, write: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help) {
    console.log(USAGE);
    return 0;
  }
  const command = parsed.positionals[0];
  if (
    parsed.positionals.length !== 1 ||
    (command !== 'check' && command !== 'api-diff') ||
    (command === 'check' && parsed.values.write !== undefined)
  ) {
    console.error(
      `${parsed.positionals.length === 0 ? 'No command given.' : `Unknown command "${parsed.positionals.join(' ')}".`}\n${USAGE}`,
    );
    return 2;
  }
  try {
    const root = parsed.values.root ? path.resolve(parsed.values.root) : REPO_ROOT;
    const result = await checkReleaseChangesets(root);
    if (command === 'api-diff') {
      const changed = result.packages.flatMap((pkg) =>
        pkg.api && pkg.api.diff.level !== null ? [{ name: pkg.name, ...pkg.api }] : [],
      );
      for (const pkg of changed) console.log(`${pkg.name}\n${formatSpecDiff(pkg.spec, pkg.diff)}\n`);
      if (changed.length === 0) console.log('No client API changed since its release.');
      if (parsed.values.write !== undefined) {
        if (!existsSync(path.resolve(root, parsed.values.write))) {
          console.error(
            `${parsed.values.write} does not exist: write the changeset first (pnpm changeset), then add its API changes with --write.`,
          );
          return 2;
        }
        const written = writeApiDiff(root, parsed.values.write, result);
        console.log(
          written.length > 0
            ? `Wrote the API changes of ${written.join(', ')} into ${parsed.values.write}.`
            : `${parsed.values.write} names no package whose API changed: nothing written.`,
        );
      }
      return 0;
    }
    for (const pkg of result.packages) {
      const state =
        pkg.changed.length === 0
          ? 'released, nothing changed since'
          : `${pkg.changed.length} changed file(s), changeset(s): ${pkg.changesets.join(', ') || 'none'}`;
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
