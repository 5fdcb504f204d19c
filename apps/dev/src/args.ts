// `pnpm start`'s flags and ports. Wrong usage is one line on stderr and exit 2, never a stack trace.
import { createServer } from 'node:net';
import { parseArgs } from 'node:util';

export const USAGE = `Usage: pnpm start [options]

Runs the sandbox, the webhook gateway, the reconciliation worker and the finance console as processes,
wired together, and a scenario through every product; then keeps running until Ctrl-C.

Options:
  --once                 run the scenario, print the reconciliation summary and stop (exit 0 when everything held)
  --persist              with --once, keep the store (.data/pglite or DATABASE_URL) instead of a throwaway one
  --port <n>             the sandbox's port (SANDBOX_PORT; default 4010; 0: any free port, for every server)
  --gateway-port <n>     the gateway's port (GATEWAY_PORT; default 4020)
  --worker-port <n>      the worker's /healthz and /metrics port (WORKER_PORT; default 4030)
  --console-port <n>     the finance console's port (CONSOLE_PORT; default 4031)
  -h, --help             print this help

Environment: DATABASE_URL (a PostgreSQL store instead of PGlite), PAYKIT_DATA_DIR (default .data),
GATEWAY_ADMIN_TOKEN (the gateway's admin token; without it one is made and written to
.data/gateway-admin-token, mode 600, for \`pnpm paykit events\` and \`pnpm paykit listen\`).
`;

export interface Options {
  once: boolean;
  persist: boolean;
  port: number;
  gatewayPort: number;
  workerPort: number;
  consolePort: number;
}

/** The options, or exits (0 after --help, 2 on wrong usage, 1 on a taken port). */
export async function readOptions(argv: string[], env: Record<string, string | undefined>): Promise<Options> {
  let values: {
    once?: boolean;
    persist?: boolean;
    port?: string;
    'gateway-port'?: string;
    'worker-port'?: string;
    'console-port'?: string;
    help?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        once: { type: 'boolean' },
        persist: { type: 'boolean' },
        port: { type: 'string' },
        'gateway-port': { type: 'string' },
        'worker-port': { type: 'string' },
        'console-port': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    console.error(
      `error: ${(error as Error).message.split('\n')[0]!.replace(/\.?$/, '')}. Run \`pnpm start --help\` for the options.`,
    );
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  // --port 0 (CI) puts every server on a free port.
  const port = portOf(values.port ?? env.SANDBOX_PORT, 4010, '--port or SANDBOX_PORT');
  const gatewayPort = portOf(
    values['gateway-port'] ?? env.GATEWAY_PORT,
    port === 0 ? 0 : 4020,
    '--gateway-port or GATEWAY_PORT',
  );
  const workerPort = portOf(
    values['worker-port'] ?? env.WORKER_PORT,
    port === 0 ? 0 : 4030,
    '--worker-port or WORKER_PORT',
  );
  const consolePort = portOf(
    values['console-port'] ?? env.CONSOLE_PORT,
    port === 0 ? 0 : 4031,
    '--console-port or CONSOLE_PORT',
  );
  // A port another process holds is named before anything runs, with the flag that changes it.
  for (const [taken, flag] of [
    [port, '--port'],
    [gatewayPort, '--gateway-port'],
    [workerPort, '--worker-port'],
    [consolePort, '--console-port'],
  ] as const) {
    if (taken !== 0 && !(await portIsFree(taken))) {
      console.error(
        `error: port ${taken} is taken: stop the process that holds it, or run \`pnpm start ${flag} N\` (0: any free port).`,
      );
      process.exit(1);
    }
  }
  return { once: values.once === true, persist: values.persist === true, port, gatewayPort, workerPort, consolePort };
}

function portOf(value: string | undefined, fallback: number, name: string): number {
  const port = Number(value ?? fallback);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`Invalid port "${value}" (${name}): give a whole number from 0 to 65535 (0: any free port).`);
    process.exit(2);
  }
  return port;
}

/** Whether a server could listen on `port` now. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, () => probe.close(() => resolve(true)));
  });
}
