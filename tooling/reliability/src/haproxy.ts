// HAProxy in front of gateway replicas, and of the finance console's, as docs/operations.md tells
// operators to run it: the configuration (`haproxyConfig`, the file the docs show with the default
// ports), Debian's haproxy started in the foreground on it (`startHaproxy`), and its runtime API
// over the admin socket: each server's state as its health checks see it, the retries it made, and
// drain/ready for a rolling restart. Where haproxy is required (CI, or PAYKIT_REQUIRE_HAPROXY=1) a missing binary is an
// error naming `bash scripts/haproxy.sh`; elsewhere the scenarios that need it are skipped with
// the reason printed.
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The haproxy executable: PAYKIT_HAPROXY, or /usr/sbin/haproxy (Debian's package). */
export const HAPROXY = process.env.PAYKIT_HAPROXY || '/usr/sbin/haproxy';

const flag = (value: string | undefined) =>
  value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';

/** Whether a missing haproxy fails the run rather than skipping the scenarios that need it. */
export const HAPROXY_REQUIRED = flag(process.env.CI) || flag(process.env.PAYKIT_REQUIRE_HAPROXY);

/** Why haproxy cannot run here (with what to do about it), or null when it can. */
export function haproxyMissing(): string | null {
  try {
    accessSync(HAPROXY, constants.X_OK);
    return null;
  } catch {
    return `${HAPROXY} is missing: install it with \`bash scripts/haproxy.sh\` (Debian's haproxy), or point PAYKIT_HAPROXY at one`;
  }
}

export interface HaproxyConfigOptions {
  /** The address the platform's webhooks reach: `:4020`, `127.0.0.1:41234`. */
  bind: string;
  /** The gateways, `host:port` each, named gateway1, gateway2, … in that order. */
  gateways: readonly string[];
  /** The runtime API's socket (drain and ready during a rolling restart, the servers' states). */
  statsSocket: string;
  /**
   * Whether a request a gateway never answered is retried on another (default true, as documented);
   * false shows what the platform sees where HAProxy cannot retry: a reset or a 502, redelivered.
   */
  retries?: boolean;
  /** The finance console's replicas (`host:port` each, named console1, console2, …) behind their own frontend on `bind`. */
  console?: { bind: string; servers: readonly string[] };
}

/** The backends' names in the configuration and on the runtime API. */
export const HAPROXY_BACKEND = 'gateways';
export const CONSOLE_BACKEND = 'consoles';
export type HaproxyBackend = typeof HAPROXY_BACKEND | typeof CONSOLE_BACKEND;

/** Server names on the runtime API: gateway1 for `gateways[0]`, console1 for the first console, … */
export const haproxyServerName = (index: number, backend: HaproxyBackend = HAPROXY_BACKEND) =>
  `${backend === HAPROXY_BACKEND ? 'gateway' : 'console'}${index + 1}`;

/**
 * The configuration: round robin over the gateways, each checked at GET /readyz every 500 ms
 * (2 failures take it out, 2 passes bring it back), and a request the gateway never answered
 * (refused, reset, closed empty) retried on another gateway, up to twice: the gateway's intake is
 * idempotent by delivery id, so a second try of a POST it may have committed is answered with the
 * first answer, never stored twice. A slow answer is not retried (the gateway answers 503 within
 * its commit deadline; the platform waits 5 s).
 */
export function haproxyConfig(options: HaproxyConfigOptions): string {
  return `global
    maxconn 4096
    stats socket ${options.statsSocket} mode 600 level admin

defaults
    mode http
    timeout connect 1s
    timeout client 30s
    timeout server 6s
    timeout http-request 10s
    timeout http-keep-alive 10s
    timeout check 1s
    # The whole request is read before a gateway is chosen: only a buffered request can be retried.
    option http-buffer-request
${
  options.retries === false
    ? ''
    : `    # A gateway that died before answering: try another one (safe: the intake is idempotent by delivery id).
    retry-on conn-failure empty-response junk-response
`
}    retries 2
    option redispatch 1

frontend webhooks
    bind ${options.bind}
    default_backend ${HAPROXY_BACKEND}

backend ${HAPROXY_BACKEND}
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
    default-server inter 500ms fall 2 rise 2
${options.gateways.map((address, index) => `    server ${haproxyServerName(index)} ${address} check`).join('\n')}
${options.console ? consoleSection(options.console) : ''}`;
}

/**
 * The console's frontend and backend: round robin with no stickiness (every replica reads the
 * logins from the database), each console checked at GET /healthz (which asks the database); the
 * client's address passed on in X-Forwarded-For, in place of whatever the client wrote there (the
 * console believes it from a trusted proxy, CONSOLE_TRUSTED_PROXIES, loopback by default: its
 * login bounds and its audit then see the client, not HAProxy, and no address a client forges); a request retried on another console only when no console received it, so
 * an action is never sent twice; exports given a minute; and X-Served-By naming the console that
 * answered.
 */
function consoleSection(consoles: { bind: string; servers: readonly string[] }): string {
  return `
frontend console
    bind ${consoles.bind}
    default_backend ${CONSOLE_BACKEND}

backend ${CONSOLE_BACKEND}
    balance roundrobin
    option httpchk GET /healthz
    http-check expect status 200
    http-request del-header X-Forwarded-For
    option forwardfor
    retry-on conn-failure
    timeout server 60s
    http-response set-header X-Served-By %[srv_name]
    default-server inter 500ms fall 2 rise 2
${consoles.servers.map((address, index) => `    server ${haproxyServerName(index, CONSOLE_BACKEND)} ${address} check`).join('\n')}
`;
}

/** One server's line of `show stat`: its state as the checks see it, in-flight sessions, retries. */
export interface HaproxyServerStat {
  /** UP, DOWN, "UP 1/2" (coming up), "DOWN 1/2" (going down), DRAIN, MAINT, no check. */
  status: string;
  /** Requests it is handling now. */
  current: number;
  /** Requests retried (wretr) and sent to another server (wredis) after it failed them. */
  retries: number;
  redispatches: number;
}

export interface Haproxy {
  /** The frontend's URL: where the webhooks point. */
  url: string;
  /** The console's frontend URL, when consoles were given. */
  consoleUrl: string | undefined;
  /** The generated configuration file. */
  configFile: string;
  /** One command on the runtime API, its answer. */
  command(line: string): Promise<string>;
  /** Every server's line of `show stat` in `backend` (default the gateways'), by server name. */
  servers(backend?: HaproxyBackend): Promise<Map<string, HaproxyServerStat>>;
  /** Resolves once server `index` of `backend` is UP (its checks passed `rise` times); throws after `timeoutMs`. */
  waitUp(index: number, timeoutMs?: number, backend?: HaproxyBackend): Promise<void>;
  /** Takes gateway `index` out of rotation (no new requests) or puts it back. */
  setState(index: number, state: 'drain' | 'ready'): Promise<void>;
  /** Everything haproxy wrote. */
  output(): string;
  /** SIGTERM, and removes its folder. */
  close(): Promise<void>;
}

/** Starts `haproxy -db -f <generated config>` with the frontend on `port`, in front of `gatewayPorts` on 127.0.0.1. */
export async function startHaproxy(options: {
  port: number;
  gatewayPorts: readonly number[];
  /** As in haproxyConfig (default true). */
  retries?: boolean;
  /** The console's frontend port and the consoles' ports on 127.0.0.1, when it balances consoles too. */
  console?: { port: number; ports: readonly number[] };
  onOutput?: (text: string) => void;
}): Promise<Haproxy> {
  const missing = haproxyMissing();
  if (missing) throw new Error(missing);
  const dir = mkdtempSync(path.join(tmpdir(), 'paykit-haproxy-'));
  const statsSocket = path.join(dir, 'admin.sock');
  const configFile = path.join(dir, 'haproxy.cfg');
  writeFileSync(
    configFile,
    haproxyConfig({
      bind: `127.0.0.1:${options.port}`,
      gateways: options.gatewayPorts.map((port) => `127.0.0.1:${port}`),
      statsSocket,
      retries: options.retries ?? true,
      ...(options.console && {
        console: {
          bind: `127.0.0.1:${options.console.port}`,
          servers: options.console.ports.map((port) => `127.0.0.1:${port}`),
        },
      }),
    }),
  );
  const child = spawn(HAPROXY, ['-db', '-f', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.once('error', (error) => (output += `cannot run ${HAPROXY}: ${error.message}\n`));
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      options.onOutput?.(chunk.toString());
    });
  }

  const command = (line: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(statsSocket);
      let answer = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (answer += chunk));
      socket.once('error', reject);
      socket.once('end', () => resolve(answer));
      socket.once('connect', () => socket.end(`${line}\n`));
    });

  const servers = async (backend: HaproxyBackend = HAPROXY_BACKEND) => {
    const [header, ...lines] = (await command('show stat')).trim().split('\n');
    const columns = header!.replace(/^# /, '').split(',');
    const at = (name: string) => columns.indexOf(name);
    const found = new Map<string, HaproxyServerStat>();
    for (const line of lines) {
      const cells = line.split(',');
      if (cells[at('pxname')] !== backend || cells[at('svname')] === 'BACKEND') continue;
      found.set(cells[at('svname')]!, {
        status: cells[at('status')]!,
        current: Number(cells[at('scur')]),
        retries: Number(cells[at('wretr')] || 0),
        redispatches: Number(cells[at('wredis')] || 0),
      });
    }
    return found;
  };

  // Ready once the runtime API answers with every gateway listed.
  const deadline = performance.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode}) at start:\n${output}`);
    try {
      if (
        (await servers()).size === options.gatewayPorts.length &&
        (await servers(CONSOLE_BACKEND)).size === (options.console?.ports.length ?? 0)
      )
        break;
    } catch {
      // Not listening yet.
    }
    if (performance.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`haproxy did not open its runtime API within 10 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  return {
    url: `http://127.0.0.1:${options.port}`,
    consoleUrl: options.console && `http://127.0.0.1:${options.console.port}`,
    configFile,
    command,
    servers,
    async waitUp(index, timeoutMs = 30_000, backend = HAPROXY_BACKEND) {
      const name = haproxyServerName(index, backend);
      const until = performance.now() + timeoutMs;
      let last = 'not listed';
      while (performance.now() < until) {
        last = (await servers(backend)).get(name)?.status ?? 'not listed';
        if (last === 'UP') return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`haproxy did not see ${name} UP within ${timeoutMs / 1000} s (last: ${last})`);
    },
    async setState(index, state) {
      const answer = await command(`set server ${HAPROXY_BACKEND}/${haproxyServerName(index)} state ${state}`);
      if (answer.trim() !== '') throw new Error(`haproxy refused "state ${state}": ${answer.trim()}`);
    },
    output: () => output,
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
