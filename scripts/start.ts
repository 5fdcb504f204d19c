// `pnpm start`: the main job on the embedded defaults. Today paykit's runnable product is its
// generated clients: this regenerates them from the specs (a turbo cache hit when nothing
// changed), proves the specs still carry the whole platform reference, and prints what each
// client package offers. The sandbox, gateway, worker and CLI join this command as they land.
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';

const root = path.resolve(import.meta.dirname, '..');
const step = (title: string, command: string, args: string[]) => {
  console.log(`\n▶ ${title}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`\n✖ ${title} failed (exit ${result.status}). Fix what it printed above, then run \`pnpm start\` again.`);
    process.exit(1);
  }
};

step('Generate the clients from specs/ (pnpm gen)', path.join(root, 'node_modules/.bin/turbo'), ['run', 'codegen', '--output-logs=errors-only']);
step('Check the specs against the platform reference (pnpm lint:specs)', process.execPath, [path.join(root, 'tooling/spec-checks/src/cli.ts')]);

const METHODS = new Set(['get', 'put', 'post', 'patch', 'delete']);
const rows: string[][] = [['package', 'API', 'operations', 'events', 'schemas']];
for (const id of ['core', 'direct-debit', 'cash', 'remittance', 'billpay', 'gift-cards', 'lottery']) {
  const spec = parse(await readFile(path.join(root, 'specs', `${id}.yaml`), 'utf8')) as {
    info: { version: string };
    paths?: Record<string, Record<string, unknown>>;
    webhooks?: Record<string, unknown>;
    components?: { schemas?: Record<string, unknown> };
  };
  const operations = Object.values(spec.paths ?? {}).flatMap((item) => Object.keys(item).filter((k) => METHODS.has(k))).length;
  rows.push([`@paykit/${id}-client`, spec.info.version, String(operations), String(Object.keys(spec.webhooks ?? {}).length), String(Object.keys(spec.components?.schemas ?? {}).length)]);
}
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
console.log('\n▶ Client packages');
for (const row of rows) console.log('  ' + row.map((cell, i) => cell.padEnd(widths[i]!)).join('  '));
console.log(`
Import a client from another workspace package, e.g.:
  import { createPennyValidation, client } from '@paykit/core-client';
  import { zMoneyInEvent } from '@paykit/core-client/zod';
Next: \`pnpm check\` runs the whole CI suite; see README.md for the rest.`);
