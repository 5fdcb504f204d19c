// The webhook gateway as a separate process, for tests of apps that must not import it (the CLI):
// spawned from apps/webhook-gateway on a free port with the admin token of the secret audit, its
// log lines handed to the audit, stopped by stop().
import path from 'node:path';
import { startAppProcess, type AppProcess } from './app-process.ts';
import { TEST_SECRETS, record } from './secret-audit.ts';

const MAIN = path.resolve(import.meta.dirname, '../../../apps/webhook-gateway/src/main.ts');

/** A gateway on port 0 logging warnings only, with `env` added (its store, the tokens it checks). */
export function startGatewayProcess(env: Record<string, string>): Promise<AppProcess> {
  return startAppProcess({
    name: 'The gateway',
    main: MAIN,
    env: { GATEWAY_PORT: '0', GATEWAY_ADMIN_TOKEN: TEST_SECRETS.adminToken, GATEWAY_LOG_LEVEL: 'warn', ...env },
    onOutput: (text) => record('gateway output', text),
    startTimeoutMs: 90_000,
  });
}
