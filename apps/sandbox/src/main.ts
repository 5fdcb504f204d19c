#!/usr/bin/env -S node --conditions=@paykit/source
// paykit-sandbox: the simulated platform as a process.
//   pnpm --filter @paykit/sandbox start [--port 4010] [--seed FILE] [--manual-clock]
// Workspace packages resolve to their TypeScript sources (export condition @paykit/source),
// so the sandbox runs from a fresh clone without a build.
// Environment: SANDBOX_PORT, SANDBOX_HOST, SANDBOX_SEED (a seed file), SANDBOX_RANDOM_SEED,
// SANDBOX_SPEI_SETTLE_AFTER.
// Started like every app (@paykit/service's runApp): a bad flag or variable exits 2, a failed start
// 1, and SIGINT or SIGTERM stops it once, within the stop deadline.
import { parseArgs } from 'node:util';
import { ConfigError, runApp } from '@paykit/service';
import { loadSeedFile } from './seed.ts';
import { startSandbox, type SandboxOptions } from './server.ts';

const USAGE = `usage: paykit-sandbox [--port N] [--host ADDR] [--seed FILE] [--random-seed TEXT] [--manual-clock] [--spei-settle-after N|off] [--log]
  --port         port to listen on (default 4010, or SANDBOX_PORT)
  --host         address to bind (default 127.0.0.1, or SANDBOX_HOST)
  --seed         a seed file (JSON, shaped like GET /_sandbox/seed) instead of the default seed (or SANDBOX_SEED)
  --random-seed  seeds ids, tokens and fault decisions, so a run repeats, ids included (or SANDBOX_RANDOM_SEED;
                 default: a fresh seed per start, so ids never repeat in a store that outlives the run)
  --manual-clock the sandbox clock stands still until POST /_sandbox/clock/advance
  --spei-settle-after  seconds after which an outbound SPEI transfer settles on its own (default 10, or
                 SANDBOX_SPEI_SETTLE_AFTER); off: only when POST /_sandbox/core/transactions/{id}/settle says so
  --log          log every request as a JSON line`;

const SANDBOX = { name: 'sandbox', readme: 'apps/sandbox/README.md' };

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  seed: { type: 'string' },
  'random-seed': { type: 'string' },
  'manual-clock': { type: 'boolean' },
  'spei-settle-after': { type: 'string' },
  log: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

interface SandboxConfig {
  options: Omit<SandboxOptions, 'seed'>;
  seedFile: string | undefined;
}

/** The flags and SANDBOX_* variables as the sandbox's options; a ConfigError names each bad one (--help: the flags, exit 0). */
function loadConfig(): SandboxConfig {
  let values;
  try {
    ({ values } = parseArgs({ options: OPTIONS }));
  } catch (error) {
    throw new ConfigError(SANDBOX, [`${error instanceof Error ? error.message : String(error)}\n${USAGE}`]);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const problems: string[] = [];
  const portText = values.port ?? process.env.SANDBOX_PORT ?? '4010';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    problems.push(`Invalid port "${portText}" (--port or SANDBOX_PORT): give a whole number from 0 to 65535.`);
  const settleText = values['spei-settle-after'] ?? process.env.SANDBOX_SPEI_SETTLE_AFTER;
  const settleAfter =
    settleText === undefined || settleText === '' ? undefined : settleText === 'off' ? null : Number(settleText);
  if (settleAfter !== undefined && settleAfter !== null && !(Number.isInteger(settleAfter) && settleAfter >= 0))
    problems.push(
      `Invalid --spei-settle-after "${settleText}" (or SANDBOX_SPEI_SETTLE_AFTER): give a whole number of seconds, or off.`,
    );
  if (problems.length > 0) throw new ConfigError(SANDBOX, problems);
  const randomSeed = values['random-seed'] ?? (process.env.SANDBOX_RANDOM_SEED || undefined);
  return {
    seedFile: values.seed ?? process.env.SANDBOX_SEED,
    options: {
      port,
      host: values.host ?? process.env.SANDBOX_HOST ?? '127.0.0.1',
      ...(randomSeed ? { randomSeed } : {}),
      clock: { mode: values['manual-clock'] ? 'manual' : 'real' },
      ...(settleAfter === undefined ? {} : { settings: { core: { speiSettleAfterSeconds: settleAfter } } }),
      logger: values.log ?? false,
    },
  };
}

await runApp({
  ...SANDBOX,
  loadConfig,
  async start({ options, seedFile }) {
    const seed = seedFile ? await loadSeedFile(seedFile) : undefined;
    const sandbox = await startSandbox({ ...options, ...(seed ? { seed } : {}) }).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      throw /EADDRINUSE/.test(message)
        ? new Error(`${message}. The port is taken: stop the other process or pass --port.`)
        : error;
    });
    return {
      listening: [
        `paykit sandbox listening on ${sandbox.url}`,
        ...Object.entries(sandbox.urls).map(([product, url]) => `  ${product.padEnd(13)} ${url}`),
        `  control API    ${sandbox.controlUrl} (GET /_sandbox/seed lists the seeded clients and keys)`,
      ],
      close: () => sandbox.close(),
    };
  },
});
