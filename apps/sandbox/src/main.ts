#!/usr/bin/env -S node --conditions=@paykit/source
// paykit-sandbox: the simulated platform as a process.
//   pnpm --filter @paykit/sandbox start [--port 4010] [--seed FILE] [--manual-clock]
// Workspace packages resolve to their TypeScript sources (export condition @paykit/source),
// so the sandbox runs from a fresh clone without a build.
// Environment: SANDBOX_PORT, SANDBOX_HOST, SANDBOX_SEED (a seed file), SANDBOX_RANDOM_SEED,
// SANDBOX_SPEI_SETTLE_AFTER.
import { parseArgs } from 'node:util';
import { loadSeedFile } from './seed.ts';
import { startSandbox } from './server.ts';

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

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        seed: { type: 'string' },
        'random-seed': { type: 'string' },
        'manual-clock': { type: 'boolean' },
        'spei-settle-after': { type: 'string' },
        log: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : error}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const portText = values.port ?? process.env.SANDBOX_PORT ?? '4010';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`Invalid port "${portText}" (--port or SANDBOX_PORT): give a whole number from 0 to 65535.`);
    return 2;
  }
  const settleText = values['spei-settle-after'] ?? process.env.SANDBOX_SPEI_SETTLE_AFTER;
  const settleAfter =
    settleText === undefined || settleText === '' ? undefined : settleText === 'off' ? null : Number(settleText);
  if (settleAfter !== undefined && settleAfter !== null && !(Number.isInteger(settleAfter) && settleAfter >= 0)) {
    console.error(
      `Invalid --spei-settle-after "${settleText}" (or SANDBOX_SPEI_SETTLE_AFTER): give a whole number of seconds, or off.`,
    );
    return 2;
  }
  const seedFile = values.seed ?? process.env.SANDBOX_SEED;
  const seed = seedFile ? await loadSeedFile(seedFile) : undefined;
  const randomSeed = values['random-seed'] ?? (process.env.SANDBOX_RANDOM_SEED || undefined);
  const sandbox = await startSandbox({
    port,
    host: values.host ?? process.env.SANDBOX_HOST ?? '127.0.0.1',
    ...(seed ? { seed } : {}),
    ...(randomSeed ? { randomSeed } : {}),
    clock: { mode: values['manual-clock'] ? 'manual' : 'real' },
    ...(settleAfter === undefined ? {} : { settings: { core: { speiSettleAfterSeconds: settleAfter } } }),
    logger: values.log ?? false,
  });
  console.log(`paykit sandbox listening on ${sandbox.url}`);
  for (const [product, url] of Object.entries(sandbox.urls)) console.log(`  ${product.padEnd(13)} ${url}`);
  console.log(`  control API    ${sandbox.controlUrl} (GET /_sandbox/seed lists the seeded clients and keys)`);
  const stop = async () => {
    await sandbox.close();
    process.exit(0);
  };
  // `on`: through pnpm, Ctrl-C arrives twice (from the terminal, and passed on by pnpm); stop once.
  let stopping = false;
  const onSignal = () => {
    if (stopping) return;
    stopping = true;
    void stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return -1;
}

main().then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    console.error(
      /EADDRINUSE/.test(message) ? `${message}\nThe port is taken: stop the other process or pass --port.` : message,
    );
    process.exit(1);
  },
);
