// A product team's project outside the workspace, as the release tests build it: a package.json
// with the dependencies given (TypeScript and Node's types beside them), a strict NodeNext
// tsconfig, an `.npmrc` when the packages come from a private registry, installed with the user's
// npm, and its own `tsc`.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { childEnv, run, runOk, type RunResult } from './exec.ts';
import type { LocalRegistry } from './registry.ts';

export interface ConsumerProject {
  name: string;
  dependencies: Record<string, string>;
  devDependencies?: Record<string, string>;
  /** What tsc checks: `files` (a list of files) or `include` (folders). */
  files?: string[];
  include?: string[];
  /** false checks the installed packages' .d.ts too. Default true. */
  skipLibCheck?: boolean;
  /** @paykit/* from this registry (its scope line and token only); everything else from the user's usual one. */
  registry?: LocalRegistry;
}

/** The npmrc lines that take @paykit/* from `registry` and nothing else. */
export function scopedNpmrc(registry: LocalRegistry): string {
  return `@paykit:registry=${registry.url}/\n//${new URL(registry.url).host}/:_authToken=${registry.token}\n`;
}

export function writeConsumerProject(dir: string, project: ConsumerProject): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify(
      {
        name: project.name,
        private: true,
        type: 'module',
        dependencies: project.dependencies,
        devDependencies: { ...project.devDependencies, typescript: '5.9.3', '@types/node': '24.19.2' },
      },
      null,
      2,
    ),
  );
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: project.skipLibCheck ?? true,
        types: ['node'],
      },
      ...(project.files ? { files: project.files } : { include: project.include ?? ['src'] }),
    }),
  );
  if (project.registry) writeFileSync(path.join(dir, '.npmrc'), scopedNpmrc(project.registry));
}

/** `npm install [args]` in the project, outside any workspace: no pnpm links, no @paykit/source condition. */
export function npmInstall(dir: string, args: readonly string[] = []): Promise<RunResult> {
  return runOk('npm', ['install', ...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: dir,
    env: childEnv({ npm_config_workspaces: 'false' }),
    timeoutMs: 300_000,
  });
}

/** The project's own tsc, whatever it answers. */
export function consumerTsc(dir: string): Promise<RunResult> {
  return run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], { cwd: dir });
}
