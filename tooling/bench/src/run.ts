// `pnpm bench`: runs every `bench/*.bench.ts` of the workspace, one process each, in order.
// usage: pnpm bench [name-filter]
import { spawnSync } from 'node:child_process';
import { glob } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT } from './index.ts';

const filter = process.argv[2];
const files: string[] = [];
for await (const file of glob('{packages,apps,tooling}/*/bench/*.bench.ts', { cwd: REPO_ROOT })) files.push(file);
files.sort();
const selected = files.filter((f) => !filter || f.includes(filter));
if (selected.length === 0) {
  console.error(filter ? `No benchmark matches "${filter}". Benchmarks: ${files.join(', ')}` : 'No benchmarks found.');
  process.exit(2);
}
let failed = 0;
for (const file of selected) {
  console.log(`\n== ${file}`);
  // Workspace packages resolve to their sources (export condition @paykit/source): no build needed.
  const result = spawnSync(process.execPath, ['--conditions=@paykit/source', path.join(REPO_ROOT, file)], {
    stdio: 'inherit',
    cwd: REPO_ROOT,
  });
  if (result.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
