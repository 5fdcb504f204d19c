// The platform's documented payloads (packages/contracts/fixtures/documented): each a JSON file
// with the page it came from and its `payload`, read by path relative to that folder, found
// through @paykit/contracts wherever the test runs.
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The folder of the documented fixtures. */
export const DOCUMENTED_FIXTURES = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@paykit/contracts/package.json')),
  'fixtures',
  'documented',
);

/**
 * One fixture file, parsed, named by its path under packages/contracts/fixtures/documented:
 * `documentedFixture('direct-debit/request.charges.create.inline.json')` (docs-check: not-a-path).
 */
export function documentedFixture<T = { payload: Record<string, unknown> }>(file: string): T {
  return JSON.parse(readFileSync(path.join(DOCUMENTED_FIXTURES, file), 'utf8')) as T;
}

/** Every fixture of a folder whose name passes `accept` (default: every .json), sorted by name, each with its file name. */
export function documentedFixtures<T = { payload: Record<string, unknown> }>(
  folder: string,
  accept: (file: string) => boolean = (file) => file.endsWith('.json'),
): (T & { file: string })[] {
  return readdirSync(path.join(DOCUMENTED_FIXTURES, folder))
    .filter(accept)
    .sort()
    .map((file) => ({ file, ...documentedFixture<T>(path.join(folder, file)) }));
}
