// Neither the gateway nor the worker names its database to whoever reads its start-up lines, logs,
// /healthz, /readyz or /metrics: both run as processes (their main.ts) on a store whose user, host
// and name are recognisable — PGlite in a folder with a telling name always, and with DATABASE_URL a
// PostgreSQL role and database made for the test, reached as `localhost` — and none of those words
// may appear in anything they print or answer. /metrics is scraped with METRICS_TOKEN; the worker
// has a CONSOLE_PASSWORD, and the secret audit sees everything both print. Nor does the
// worker's /healthz repeat the address a driver's error names once the database is gone.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '@paykit/store';
import { startAppProcess } from '@paykit/testing/app-process';
import { proxyUrl } from '@paykit/testing/tcp-proxy';
import { TEST_SECRETS, record } from '@paykit/testing/secret-audit';
import { afterAll, describe, expect, it } from 'vitest';
import { startGatewayProcess } from './gateway-process.ts';

const WORKER_MAIN = path.resolve(import.meta.dirname, '../src/main.ts');
const METRICS_TOKEN = TEST_SECRETS.metricsToken;
const tag = randomBytes(4).toString('hex');

interface Store {
  name: string;
  env: Record<string, string>;
  /** Words that name the store's connection: none may be printed or answered. */
  secrets: string[];
  drop(): Promise<void>;
}

async function pgliteStore(): Promise<Store> {
  const dir = mkdtempSync(path.join(tmpdir(), `paykit-secret-folder-${tag}-`));
  return {
    name: 'pglite',
    env: { PAYKIT_DATA_DIR: dir },
    secrets: [dir, `paykit-secret-folder-${tag}`],
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A role and a database of its own on DATABASE_URL's server, reached as localhost. */
async function postgresStore(serverUrl: string): Promise<Store> {
  const user = `paykit_secret_user_${tag}`;
  const database = `paykit_secret_db_${tag}`;
  const admin = await openDatabase({ databaseUrl: serverUrl, poolSize: 1 });
  try {
    await admin.query(`CREATE ROLE ${user} LOGIN`);
    await admin.query(`CREATE DATABASE ${database} OWNER ${user}`);
  } finally {
    await admin.close();
  }
  const url = new URL(serverUrl);
  url.hostname = 'localhost';
  url.username = user;
  url.password = '';
  url.pathname = `/${database}`;
  return {
    name: 'postgres',
    env: { DATABASE_URL: url.toString() },
    secrets: [user, database, `localhost:${url.port || '5432'}`, 'localhost'],
    drop: async () => {
      const cleanup = await openDatabase({ databaseUrl: serverUrl, poolSize: 1 });
      try {
        await cleanup.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
        await cleanup.query(`DROP ROLE IF EXISTS ${user}`);
      } finally {
        await cleanup.close();
      }
    },
  };
}

const kinds: Array<[string, () => Promise<Store>]> = [['pglite', pgliteStore]];
if (process.env.DATABASE_URL) kinds.push(['postgres', () => postgresStore(process.env.DATABASE_URL!)]);

describe.each(kinds)('connection details on %s', (_name, make) => {
  const stores: Store[] = [];
  afterAll(async () => {
    for (const store of stores) await store.drop();
  });

  it('are printed and answered by neither the gateway nor the worker', { timeout: 150_000 }, async () => {
    const store = await make();
    stores.push(store);
    const seen: string[] = [];
    const scrape = async (url: string, route: string) => {
      const response = await fetch(`${url}${route}`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      const body = await response.text();
      seen.push(`${route}: ${body}`);
      return { status: response.status, body };
    };

    const gateway = await startGatewayProcess(
      {
        ...store.env,
        GATEWAY_LOG_LEVEL: 'info',
        GATEWAY_CORE_TOKENS_MONEY_IN: TEST_SECRETS.coreWebhookToken,
        METRICS_TOKEN,
      },
      60_000,
    );
    try {
      expect(gateway.output()).toMatch(
        new RegExp(`listening on http://\\S+ \\(store: ${store.name}; /metrics: bearer token \\(METRICS_TOKEN\\)\\)`),
      );
      expect(await scrape(gateway.url, '/readyz')).toEqual({
        status: 200,
        body: JSON.stringify({ status: 'ready', store: store.name }),
      });
      expect((await scrape(gateway.url, '/healthz')).status).toBe(200);
      expect((await scrape(gateway.url, '/metrics')).body).toContain('gateway_events_total');
    } finally {
      await gateway.stop();
    }
    seen.push(gateway.output());
    record('gateway output', gateway.output());

    // After the gateway: with PGlite one process at a time opens the folder.
    const worker = await startAppProcess({
      name: 'The worker',
      main: WORKER_MAIN,
      env: { ...store.env, WORKER_PORT: '0', METRICS_TOKEN },
      onOutput: (text) => record('worker output', text),
      startTimeoutMs: 60_000,
    });
    try {
      expect(worker.output()).toContain(`(store: ${store.name})`);
      const health = await scrape(worker.url, '/healthz');
      expect(JSON.parse(health.body)).toMatchObject({ ok: true });
      expect((await scrape(worker.url, '/metrics')).body).toContain('worker_store_ok 1');
      // The worker serves no page: the console is an app of its own.
      expect((await scrape(worker.url, '/')).status).toBe(404);
      expect(worker.output()).toContain('/metrics: bearer token (METRICS_TOKEN)');
    } finally {
      await worker.stop();
    }
    seen.push(worker.output());

    const everything = seen.join('\n');
    expect(everything).toContain('listening on');
    for (const secret of store.secrets) expect(everything, secret).not.toContain(secret);
  });
});

describe.skipIf(!process.env.DATABASE_URL)("the worker's /healthz while PostgreSQL refuses connections", () => {
  it('says the store is unavailable without naming its address, user or database', { timeout: 90_000 }, async () => {
    const store = await postgresStore(process.env.DATABASE_URL!);
    const { proxy, url } = await proxyUrl(store.env.DATABASE_URL!);
    const worker = await startAppProcess({
      name: 'The worker',
      main: WORKER_MAIN,
      env: {
        DATABASE_URL: url.toString(),
        WORKER_PORT: '0',
        WORKER_POLL_MS: '100',
        DATABASE_CONNECT_TIMEOUT_MS: '500',
      },
    });
    try {
      await proxy.close();
      let body = '';
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline) {
        body = await (await fetch(`${worker.url}/healthz`)).text();
        const health = JSON.parse(body) as { storeError: string | null; lastError: string | null };
        if (health.storeError !== null && health.lastError !== null) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(JSON.parse(body)).toMatchObject({
        ok: false,
        storeError: expect.stringContaining('the postgres store') as unknown,
      });
      for (const secret of [...store.secrets, '127.0.0.1', `:${proxy.port}`])
        expect(body, secret).not.toContain(secret);
    } finally {
      await worker.stop();
      await store.drop();
    }
  });
});
