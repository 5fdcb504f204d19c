#!/usr/bin/env node
// The `paykit` bin. With a Node that runs TypeScript (22.18+; paykit uses 24) it runs the sources,
// with the `@paykit/source` condition (what `node --conditions=@paykit/source` does) so the
// workspace packages resolve to their sources too: no build needed, never a stale build. On an
// older Node it runs the build (dist/, from `pnpm build`, which builds the packages it imports too) when present.
/* global process, URL */
import { existsSync } from 'node:fs';
import module from 'node:module';

const sources = new URL('../src/main.ts', import.meta.url);
const dist = new URL('../dist/main.js', import.meta.url);
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const runsTypeScript = major > 22 || (major === 22 && minor >= 18);

if (runsTypeScript && existsSync(sources) && typeof module.registerHooks === 'function') {
  module.registerHooks({
    resolve: (specifier, context, next) =>
      next(specifier, { ...context, conditions: [...context.conditions, '@paykit/source'] }),
  });
  await import(sources.href);
} else if (existsSync(dist)) {
  await import(dist.href);
} else {
  process.stderr.write(
    `error: paykit needs Node 24 to run from its sources (this is Node ${process.versions.node}), or a build: run it through pnpm (pnpm paykit …), or build it and its packages first (pnpm build).\n`,
  );
  process.exitCode = 2;
}
