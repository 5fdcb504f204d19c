// A scratch git repository for the release checks' tests: made in a temporary folder, written
// to and committed with a fixed identity, removed by the test's afterEach.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { childEnv, runOk } from '../src/exec.ts';

export const gitEnv = childEnv({
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@paykit.invalid',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@paykit.invalid',
});

/** A new repository on branch main, empty; returns its folder. */
export async function scratchRepository(prefix: string): Promise<string> {
  const root = mkdtempSync(path.join(tmpdir(), prefix));
  await runOk('git', ['init', '-q', '-b', 'main'], { cwd: root, env: gitEnv });
  return root;
}

/** Writes a file (folders made as needed) under the repository. */
export function writeIn(root: string, file: string, text: string): void {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
}

/** Runs git in the repository and returns what it printed, trimmed. */
export async function gitIn(root: string, ...args: string[]): Promise<string> {
  return (await runOk('git', args, { cwd: root, env: gitEnv })).stdout.trim();
}

/** Stages everything and commits it. */
export async function commitAll(root: string, message: string): Promise<void> {
  await gitIn(root, 'add', '-A');
  await gitIn(root, 'commit', '-q', '-m', message);
}
