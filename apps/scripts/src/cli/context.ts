// One command's world: its profile, output, flags, and the product clients built from the
// profile on first use (so `--help` and commands that need none load nothing). For the sandbox
// profile every key comes from the sandbox's own seed (GET /_sandbox/seed).
import type { CoreClient, CoreClientOptions } from '@paykit/core-client';
import type { Environment } from '@paykit/runtime';
import { CliError, UsageError } from './errors.ts';
import { dryRunFetch } from './dry-run.ts';
import { Output } from './output.ts';
import { loadProfile, type LoadedProfile, type Profile } from './profile.ts';
import { readSecret, rememberSecret, shownUrl, type SecretRef } from './secrets.ts';
import { confirmOrStop } from './confirm.ts';

export interface GlobalFlags {
  profile?: string;
  config?: string;
  json?: boolean;
  yes?: boolean;
  dryRun?: boolean;
}

type SandboxSeed = Awaited<ReturnType<typeof fetchSeed>>;

async function fetchSeed(sandboxUrl: string) {
  const { initClient } = await import('@ts-rest/core');
  const { sandboxControl } = await import('@paykit/contracts');
  const control = initClient(sandboxControl, { baseUrl: sandboxUrl });
  let answer;
  try {
    answer = await control.getSeed();
  } catch {
    throw new CliError(
      `The sandbox at ${shownUrl(sandboxUrl)} does not answer.`,
      'Start it (pnpm --filter @paykit/sandbox start, or pnpm start) or set PAYKIT_SANDBOX_URL.',
    );
  }
  if (answer.status !== 200)
    throw new CliError(`The sandbox at ${shownUrl(sandboxUrl)} answered ${answer.status} to GET /_sandbox/seed.`);
  return answer.body;
}

export class Context {
  readonly flags: Required<Pick<GlobalFlags, 'json' | 'yes' | 'dryRun'>>;
  readonly out: Output;
  readonly loaded: LoadedProfile;
  #seed: Promise<SandboxSeed> | undefined;
  #core: CoreClient | undefined;

  constructor(flags: GlobalFlags) {
    this.flags = { json: flags.json ?? false, yes: flags.yes ?? false, dryRun: flags.dryRun ?? false };
    this.out = new Output({ json: this.flags.json });
    this.loaded = loadProfile(flags.profile, flags.config);
  }

  get profile(): Profile {
    return this.loaded.profile;
  }

  get environment(): Environment {
    return this.profile.environment;
  }

  /** The clients' fetch: the dry-run interceptor with --dry-run. */
  get fetch(): typeof fetch | undefined {
    return this.flags.dryRun ? dryRunFetch() : undefined;
  }

  sandboxUrl(): string {
    if (this.environment !== 'sandbox' || !this.profile.sandboxUrl) {
      throw new UsageError(
        `This command drives the sandbox; profile "${this.loaded.name}" is ${this.environment}. Use --profile sandbox.`,
      );
    }
    return this.profile.sandboxUrl;
  }

  seed(): Promise<SandboxSeed> {
    this.#seed ??= fetchSeed(this.sandboxUrl()).then((seed) => {
      for (const client of seed.core.clients) {
        rememberSecret(client.apiKeys.staging);
        rememberSecret(client.apiKeys.production);
        for (const credential of client.credentials) rememberSecret(credential.clientSecret);
      }
      for (const key of seed.directDebit?.apiKeys ?? []) rememberSecret(key);
      for (const cash of seed.cash) rememberSecret(cash.apiSecret);
      return seed;
    });
    return this.#seed;
  }

  /** A secret of the profile, or (sandbox) the seed's. */
  secret(ref: SecretRef | undefined, what: string): string | undefined {
    return ref ? readSecret(ref, what) : undefined;
  }

  baseUrl(
    product: 'core' | 'direct-debit' | 'cash' | 'remittance' | 'billpay' | 'gift-cards' | 'lottery',
    configured: string | undefined,
  ): string | undefined {
    if (configured) return configured;
    if (this.environment === 'sandbox' && this.profile.sandboxUrl) return `${this.profile.sandboxUrl}/${product}`;
    if (this.environment === 'sandbox') return undefined;
    throw new UsageError(
      `Profile "${this.loaded.name}" has no baseUrl for ${product} (the reference does not show ${this.environment}'s addresses): add it to the profile.`,
    );
  }

  /** The core client; with `hooks` (the ledger's recorder) a client of its own, not cached. */
  async core(
    hooks?: Pick<CoreClientOptions, 'onTransactionIntent' | 'onTransactionCreated' | 'onTransactionFailed'>,
  ): Promise<CoreClient> {
    if (this.#core && !hooks) return this.#core;
    const { createCoreClient } = await import('@paykit/core-client');
    const p = this.profile.core;
    let clientId = p?.clientId;
    let apiKey = this.secret(p?.apiKey, 'core.apiKey');
    let clientSecret = this.secret(p?.clientSecret, 'core.clientSecret');
    if (this.environment === 'sandbox' && (!clientId || !apiKey)) {
      const client = (await this.seed()).core.clients[0]!;
      clientId ??= client.clientId;
      apiKey ??= client.apiKeys.staging;
      clientSecret ??= client.credentials.find((c) => c.environment === 'staging')?.clientSecret;
    }
    if (!clientId || !apiKey)
      throw new UsageError(
        `Profile "${this.loaded.name}" needs core.clientId and core.apiKey ({ "env": "…" } or { "file": "…" }).`,
      );
    const client = createCoreClient({
      environment: this.environment,
      baseUrl: this.baseUrl('core', p?.baseUrl),
      clientId,
      apiKey,
      clientSecret,
      fetch: this.fetch,
      ...hooks,
    });
    if (!hooks) this.#core = client;
    return client;
  }

  async directDebit() {
    const { createDirectDebitClient } = await import('@paykit/direct-debit-client');
    const p = this.profile.directDebit;
    const apiKey =
      this.secret(p?.apiKey, 'directDebit.apiKey') ??
      (this.environment === 'sandbox' ? (await this.seed()).directDebit?.apiKeys[0] : undefined);
    if (!apiKey) throw new UsageError(`Profile "${this.loaded.name}" needs directDebit.apiKey.`);
    return createDirectDebitClient({
      environment: this.environment,
      baseUrl: this.baseUrl('direct-debit', p?.baseUrl),
      apiKey,
      fetch: this.fetch,
    });
  }

  async cash() {
    const { createCashClient } = await import('@paykit/cash-client');
    const p = this.profile.cash;
    let apiKey = this.secret(p?.apiKey, 'cash.apiKey');
    let apiSecret = this.secret(p?.apiSecret, 'cash.apiSecret');
    if (this.environment === 'sandbox' && (!apiKey || !apiSecret)) {
      const cash = (await this.seed()).cash[0]!;
      apiKey ??= cash.apiKey;
      apiSecret ??= cash.apiSecret;
    }
    if (!apiKey || !apiSecret)
      throw new UsageError(`Profile "${this.loaded.name}" needs cash.apiKey and cash.apiSecret.`);
    return createCashClient({
      environment: this.environment,
      baseUrl: this.baseUrl('cash', p?.baseUrl),
      apiKey,
      apiSecret,
      fetch: this.fetch,
    });
  }

  async remittance() {
    const { createRemittanceClient } = await import('@paykit/remittance-client');
    return createRemittanceClient({
      environment: this.environment,
      baseUrl: this.baseUrl('remittance', this.profile.remittance?.baseUrl),
      fetch: this.fetch,
    });
  }

  async bearerToken(product: 'billpay' | 'gift-cards' | 'lottery'): Promise<string> {
    const key = product === 'gift-cards' ? 'giftCards' : product;
    const configured = this.secret(this.profile[key]?.token, `${key}.token`);
    if (configured) return configured;
    if (this.environment === 'sandbox') {
      const bearer = (await this.seed()).bearer;
      const token = product === 'lottery' ? bearer.lottery[0]?.token : bearer[product][0];
      if (token) return rememberSecret(token);
    }
    throw new UsageError(`Profile "${this.loaded.name}" needs ${key}.token.`);
  }

  /** The store's PostgreSQL URL (the profile's database.url, else DATABASE_URL), remembered as a secret; undefined: PGlite. */
  databaseUrl(): string | undefined {
    const url = this.secret(this.profile.database?.url, 'database.url') ?? (process.env.DATABASE_URL || undefined);
    return url === undefined ? undefined : rememberSecret(url);
  }

  /**
   * The store the gateway and the worker share: the profile's database URL, else DATABASE_URL,
   * else PGlite under PAYKIT_DATA_DIR (.data) — which only one process may open at a time.
   */
  async database() {
    const { openDatabase, migrate } = await import('@paykit/store');
    const { ledgerMigrations } = await import('@paykit/ledger/migrations');
    const url = this.databaseUrl();
    const db = await openDatabase(
      url ? { databaseUrl: url } : { dataDir: `${process.env.PAYKIT_DATA_DIR ?? '.data'}/pglite` },
    );
    await migrate(db, [ledgerMigrations]);
    return db;
  }

  /** Asks before money moves or an account changes in production (unless --yes); nothing to ask with --dry-run. */
  async confirm(question: string): Promise<void> {
    if (this.flags.dryRun) return;
    await confirmOrStop(question, { yes: this.flags.yes, environment: this.environment });
  }
}
