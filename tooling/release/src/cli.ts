#!/usr/bin/env node
// paykit-release: release checks for CI and for people.
//   node tooling/release/src/cli.ts check [--base REF] [--root DIR]   the changeset rule
//     (changeset-check.ts) on this repository or a copy of it: per release on the base branch, and
//     per change on any other branch or with --base (branch-check.ts); exit 1 with every problem
//     listed, 0 when each change is covered, 2 on bad usage, a shallow clone or no base to compare with
//   node tooling/release/src/cli.ts api-diff [--write FILE] [--base REF] [--root DIR]   each
//     client's API changes (api-diff.ts): on a branch those the branch makes, on the base branch
//     those since the release; with --write, adds to the changeset FILE, for every package it
//     names, the lines no other pending changeset says yet, so the CHANGELOG says each change once
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { unwritten, type SpecDiff } from './api-diff.ts';
import { formatSpecDiff } from './api-section.ts';
import { checkReleaseChangesets, ReleaseCheckError, type ReleaseCheckResult } from './changeset-check.ts';
import { parseChangeset, readPendingChangesets } from './pending-changesets.ts';
import { REPO_ROOT } from './exec.ts';

const USAGE = `usage: paykit-release check [--base REF] [--root DIR]
         fail when a published package changed without a changeset of the level its API change needs:
         on a branch, changesets the branch adds for what the branch changes (merge base with REF, default main)
       paykit-release api-diff [--write FILE] [--base REF] [--root DIR]
         each client's API changes (on a branch: the branch's own; on main: since the release);
         --write adds to the changeset FILE what no other pending changeset says yet`;

/** Each client's API difference the command speaks of: the branch's own on a branch, else since its release. */
function apiChanges(result: ReleaseCheckResult): { name: string; spec: string; diff: SpecDiff }[] {
  const states = result.branch ? result.branch.packages : result.packages;
  return states.flatMap((pkg) => (pkg.api && pkg.api.diff.level !== null ? [{ name: pkg.name, ...pkg.api }] : []));
}

/**
 * Adds (or replaces) the API section of every package the changeset names, with only what no other
 * pending changeset naming the package says yet; returns what it wrote and what was already said.
 */
function writeApiDiff(
  root: string,
  file: string,
  result: ReleaseCheckResult,
): { written: string[]; alreadySaid: string[] } {
  const full = path.resolve(root, file);
  let text = readFileSync(full, 'utf8');
  const named = parseChangeset(file, text).releases;
  const target = path.relative(root, full).split(path.sep).join('/');
  const others = readPendingChangesets(root).filter((c) => c.file !== target);
  const written: string[] = [];
  const alreadySaid: string[] = [];
  for (const pkg of apiChanges(result)) {
    if (!(pkg.name in named)) continue;
    const said = others.filter((c) => pkg.name in c.releases).map((c) => c.summary);
    // Per release, the notes count is the release's whole; those sections already count theirs.
    const diff = unwritten(pkg.spec, pkg.diff, said, { countNotes: result.branch === undefined });
    // A section written before is replaced where it stands (or dropped when nothing is left to say).
    const at = text.indexOf(`API changes in ${pkg.spec} (`);
    const end = at >= 0 ? text.indexOf('\n\n', at) : -1;
    const section = diff.level === null ? '' : formatSpecDiff(pkg.spec, diff);
    if (at >= 0) {
      const after = end >= 0 ? text.slice(end) : '\n';
      text = section ? `${text.slice(0, at)}${section}${after}` : `${text.slice(0, at).trimEnd()}${after}`;
    } else if (section) {
      text = `${text.trimEnd()}\n\n${section}\n`;
    }
    (section ? written : alreadySaid).push(pkg.name);
  }
  writeFileSync(full, text.endsWith('\n') ? text : `${text}\n`);
  return { written, alreadySaid };
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        root: { type: 'string' },
        base: { type: 'string' },
        write: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
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
    const started = performance.now();
    const result = await checkReleaseChangesets(
      root,
      parsed.values.base !== undefined ? { base: parsed.values.base } : {},
    );
    const branch = result.branch;
    const where = branch
      ? `on ${branch.branch}, against ${branch.base} (merge base ${branch.mergeBase.slice(0, 7)})`
      : 'since each release';
    if (command === 'api-diff') {
      const changed = apiChanges(result);
      for (const pkg of changed) console.log(`${pkg.name}\n${formatSpecDiff(pkg.spec, pkg.diff)}\n`);
      if (changed.length === 0) console.log(`No client API changed ${where}.`);
      if (parsed.values.write !== undefined) {
        if (!existsSync(path.resolve(root, parsed.values.write))) {
          console.error(
            `${parsed.values.write} does not exist: write the changeset first (pnpm changeset), then add its API changes with --write.`,
          );
          return 2;
        }
        const { written, alreadySaid } = writeApiDiff(root, parsed.values.write, result);
        if (written.length > 0)
          console.log(`Wrote the API changes of ${written.join(', ')} ${where} into ${parsed.values.write}.`);
        if (alreadySaid.length > 0)
          console.log(
            `Other pending changesets already say every API change of ${alreadySaid.join(', ')} ${where}: nothing written for it.`,
          );
        if (written.length === 0 && alreadySaid.length === 0)
          console.log(`${parsed.values.write} names no package whose API changed ${where}: nothing written.`);
      }
      return 0;
    }
    if (branch) {
      console.log(`Branch ${branch.branch} against ${branch.base} (merge base ${branch.mergeBase.slice(0, 7)}):`);
      for (const pkg of branch.packages)
        console.log(
          `  ${pkg.name.padEnd(30)} ${pkg.changed.length} changed file(s), changeset(s) added: ${pkg.changesets.join(', ') || 'none'}${pkg.api?.diff.level ? `, API change: ${pkg.api.diff.level}` : ''}`,
        );
      if (branch.packages.length === 0) console.log('  no published package changed on this branch');
      console.log('Since each release:');
    }
    for (const pkg of result.packages) {
      const state =
        pkg.changed.length === 0
          ? 'released, nothing changed since'
          : `${pkg.changed.length} changed file(s), changeset(s): ${pkg.changesets.join(', ') || 'none'}`;
      console.log(`  ${pkg.name.padEnd(30)} ${state}`);
    }
    const took = `checked in ${Math.round(performance.now() - started)} ms`;
    if (result.problems.length > 0) {
      console.error(`\nrelease check failed (${took}):\n${result.problems.map((p) => `- ${p}`).join('\n')}`);
      return 1;
    }
    console.log(
      branch
        ? `release check: every change to a published package has a changeset, and each package this branch changes one of its own (${took}).`
        : `release check: every change to a published package has a changeset (${took}).`,
    );
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
