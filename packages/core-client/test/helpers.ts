// Shared by the core client's tests: the sandbox's default seed as the tests use it, a client
// whose clock is the sandbox's manual clock, and a small webhook receiver on node:http.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandboxProcess, type SandboxProcess } from '@paykit/testing/sandbox';
import { createCoreClient, type CoreClient, type CoreClientOptions } from '@paykit/core-client';

export interface CoreSeed {
  clientId: string;
  stagingApiKey: string;
  productionApiKey: string;
  stagingCredentialId: string;
  stagingSecret: string;
  /** Platform instruments of three owners, and two external (SPEI) ones. */
  instruments: { id: string; ownerId: string; clabe: string; platform: boolean }[];
}

export async function readSeed(sandbox: SandboxProcess): Promise<CoreSeed> {
  const answer = await sandbox.control.getSeed();
  if (answer.status !== 200) throw new Error(`GET /_sandbox/seed answered ${answer.status}`);
  const client = answer.body.core.clients[0]!;
  const staging = client.credentials.find((c) => c.environment === 'staging')!;
  return {
    clientId: client.clientId,
    stagingApiKey: client.apiKeys.staging,
    productionApiKey: client.apiKeys.production,
    stagingCredentialId: staging.id,
    stagingSecret: staging.clientSecret,
    instruments: answer.body.core.instruments.map((i) => ({
      id: i.id,
      ownerId: i.ownerId,
      clabe: i.clabe,
      platform: i.accountId !== undefined,
    })),
  };
}

/** A sandbox process, its seed, and its manual clock mirrored (synced) for a client's `now`. */
export async function startSeededSandbox(): Promise<{ sandbox: SandboxProcess; seed: CoreSeed; time: SandboxTime }> {
  const sandbox = await startSandboxProcess();
  try {
    const seed = await readSeed(sandbox);
    const time = new SandboxTime(sandbox);
    await time.sync();
    return { sandbox, seed, time };
  } catch (error) {
    await sandbox.close();
    throw error;
  }
}

/** The sandbox's manual clock, mirrored for the client's `now` option. */
export class SandboxTime {
  readonly #sandbox: SandboxProcess;
  now = new Date(0);

  constructor(sandbox: SandboxProcess) {
    this.#sandbox = sandbox;
  }

  async sync(): Promise<Date> {
    const answer = await this.#sandbox.control.getClock();
    if (answer.status !== 200) throw new Error(`GET /_sandbox/clock answered ${answer.status}`);
    this.now = new Date(answer.body.now);
    return this.now;
  }

  /** Moves the sandbox clock; the client sees it only when `tell` (default true). */
  async advance(seconds: number, tell = true): Promise<void> {
    const answer = await this.#sandbox.control.advanceClock({ body: { seconds } });
    if (answer.status !== 200) throw new Error(`POST /_sandbox/clock/advance answered ${answer.status}`);
    if (tell) this.now = new Date(answer.body.now);
  }
}

export async function tokenCreations(sandbox: SandboxProcess): Promise<number> {
  const answer = await sandbox.control.getCounters();
  if (answer.status !== 200) throw new Error(`GET /_sandbox/counters answered ${answer.status}`);
  return answer.body.tokenCreations;
}

export async function requestCount(sandbox: SandboxProcess, route: string): Promise<number> {
  const answer = await sandbox.control.getCounters();
  if (answer.status !== 200) throw new Error(`GET /_sandbox/counters answered ${answer.status}`);
  return answer.body.requests[route] ?? 0;
}

export function stagingClient(
  sandbox: SandboxProcess,
  seed: CoreSeed,
  time: SandboxTime,
  extra: Partial<CoreClientOptions> = {},
): CoreClient {
  return createCoreClient({
    environment: 'staging',
    baseUrl: sandbox.urls.core,
    clientId: seed.clientId,
    apiKey: seed.stagingApiKey,
    now: () => time.now,
    ...extra,
  });
}

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver: records every delivery and answers with `status` (200 unless told). */
export async function startReceiver(
  answer: (received: Received) => number = () => 200,
): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = {
        path: request.url ?? '/',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(entry);
      response.writeHead(answer(entry), { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Waits until `check` returns a value (polling real time; the sandbox delivers asynchronously). */
export async function eventually<T>(check: () => T | undefined, what: string, timeoutMs = 5000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() - start > timeoutMs) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
