// The fixture code bases the codemod tests run on: each `before/` tree is copied to a temporary
// folder (removed after each test), and a folder is read back as { relative path: text }.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

export const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const temporary: string[] = [];

afterEach(() => {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Every file under `root`, by its path relative to `root` (forward slashes). */
export function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(full);
      else out[path.relative(root, full).split(path.sep).join('/')] = readFileSync(full, 'utf8');
    }
  };
  visit(root);
  return out;
}

/** An empty temporary folder, removed after the test. */
export function temporaryFolder(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `paykit-codemod-${prefix}-`));
  temporary.push(dir);
  return dir;
}

/** A temporary copy of the fixture's `before/` tree. */
export function copyOf(fixture: string): string {
  const dir = temporaryFolder(fixture);
  cpSync(path.join(FIXTURES, fixture, 'before'), dir, { recursive: true });
  return dir;
}
