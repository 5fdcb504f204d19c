// startSandbox(): the whole simulated platform on one port, each product under its prefix,
// the control API under /_sandbox. Used by `pnpm --filter @paykit/sandbox start` and by tests.
import { Faults, type Seed } from '@paykit/contracts';
import Fastify, { type FastifyInstance } from 'fastify';
import { BodyTooDeepError, nestingDepth } from './body-depth.ts';
import { SandboxClock, type ClockOptions } from './clock.ts';
import { registerControl } from './control/router.ts';
import { Counters } from './counters.ts';
import { DeliveryQueue } from './deliveries.ts';
import { BearerProduct } from './products/bearer/index.ts';
import { CashService } from './products/cash/index.ts';
import { CoreService } from './products/core/index.ts';
import { DirectDebitService } from './products/direct-debit/index.ts';
import { RemittanceService } from './products/remittance/index.ts';
import { freshRandomSeed, SeededRandom } from './random.ts';
import type { SandboxProduct, SandboxRuntime } from './runtime.ts';
import { DEFAULT_SEED } from './seed.ts';
import { resolveSettings, type SettingsInput } from './settings.ts';

export interface SandboxOptions {
  /** 0 picks a free port (tests). Default 4010. */
  port?: number;
  host?: string;
  seed?: Seed;
  /**
   * Seeds the sandbox's randomness (ids, tokens, fault decisions): same seed, same run, same ids.
   * Default: a fresh seed per start, so no two sandboxes issue the same ids.
   */
  randomSeed?: string;
  clock?: ClockOptions | SandboxClock;
  settings?: SettingsInput;
  /** Log requests (pino, JSON lines) to stdout. */
  logger?: boolean;
}

export interface Products {
  core: CoreService;
  directDebit: DirectDebitService;
  cash: CashService;
  remittance: RemittanceService;
  billpay: BearerProduct;
  giftCards: BearerProduct;
  lottery: BearerProduct;
}

export interface Sandbox {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  /** Base URL of each product, as the generated clients take it. */
  urls: Record<SandboxProduct['name'], string>;
  /** Base URL of the control API (the ts-rest contract's paths are relative to `url`). */
  controlUrl: string;
  runtime: SandboxRuntime;
  products: Products;
  seed: Seed;
  /** The random seed in force: pass it as randomSeed to repeat this run (on a fresh store). */
  randomSeed: string;
  app: FastifyInstance;
  close(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const settings = resolveSettings(options.settings);
  const clock = options.clock instanceof SandboxClock ? options.clock : new SandboxClock(options.clock);
  const random = new SeededRandom(options.randomSeed ?? freshRandomSeed());
  const counters = new Counters();
  const faults: Faults = Faults.parse({});
  const runtime: SandboxRuntime = {
    clock,
    random,
    settings,
    counters,
    faults,
    deliveries: new DeliveryQueue(
      clock,
      random,
      counters,
      () => settings.delivery,
      () => runtime.faults,
    ),
  };
  const seed = options.seed ?? DEFAULT_SEED;

  const core = new CoreService(runtime);
  const products: Products = {
    core,
    directDebit: new DirectDebitService(runtime),
    cash: new CashService(runtime),
    remittance: new RemittanceService(runtime, core),
    billpay: new BearerProduct(runtime, 'billpay'),
    giftCards: new BearerProduct(runtime, 'gift-cards'),
    lottery: new BearerProduct(runtime, 'lottery'),
  };
  const all: SandboxProduct[] = Object.values(products);
  for (const product of all) product.load(seed);

  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: settings.bodyLimitBytes,
    forceCloseConnections: true,
  });

  // Faults and counters for the platform API (not for the control API).
  app.addHook('onRequest', async (request, reply) => {
    const name = request.url.split('/')[1] ?? '';
    const product = all.find((p) => p.name === name);
    if (!product) return;
    const { latencyMs, errorRate, products: only } = runtime.faults.api;
    if (only && !only.includes(product.name)) return;
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
    if (errorRate > 0 && random.next() < errorRate) {
      return reply
        .code(500)
        .send(
          product.errorBody(500, 'Injected fault: the sandbox was told to fail this request (PUT /_sandbox/faults).'),
        );
    }
  });
  // Some answers echo the body (a direct debit charge's `request`): one nested deeper than
  // JSON.stringify can write would fail as a 500. No platform request nests like that.
  app.addHook('preValidation', async (request) => {
    if (nestingDepth(request.body, settings.bodyMaxDepth) > settings.bodyMaxDepth)
      throw new BodyTooDeepError(settings.bodyMaxDepth);
  });
  app.addHook('onResponse', async (request) => {
    const route = request.routeOptions.url;
    if (route && !route.startsWith('/_sandbox')) counters.request(`${request.method} ${route}`);
  });

  for (const product of all)
    await app.register(async (scoped) => product.register(scoped), { prefix: `/${product.name}` });
  await registerControl(app, {
    runtime,
    products,
    seed: () => currentSeed,
    addSeed: (part) => {
      currentSeed = mergeSeed(currentSeed, part);
      for (const product of all) product.load(part);
      return currentSeed;
    },
    reset: () => {
      runtime.deliveries.close();
      runtime.deliveries = new DeliveryQueue(
        clock,
        random,
        counters,
        () => settings.delivery,
        () => runtime.faults,
      );
      currentSeed = seed;
      for (const product of all) {
        product.reset();
        product.load(seed);
      }
    },
  });
  let currentSeed = seed;

  await app.listen({ port: options.port ?? 4010, host: options.host ?? '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 4010);
  const url = `http://${options.host && options.host !== '0.0.0.0' ? options.host : '127.0.0.1'}:${port}`;
  const urls = Object.fromEntries(all.map((p) => [p.name, `${url}/${p.name}`])) as Sandbox['urls'];

  return {
    url,
    port,
    urls,
    controlUrl: `${url}/_sandbox`,
    runtime,
    products,
    get seed() {
      return currentSeed;
    },
    randomSeed: random.seed,
    app,
    async close() {
      runtime.deliveries.close();
      clock.stop();
      await app.close();
    },
  };
}

function mergeSeed(base: Seed, part: Partial<Seed>): Seed {
  return {
    core: {
      clients: [...base.core.clients, ...(part.core?.clients ?? [])],
      accounts: [...base.core.accounts, ...(part.core?.accounts ?? [])],
      instruments: [...base.core.instruments, ...(part.core?.instruments ?? [])],
    },
    directDebit: part.directDebit
      ? {
          orgId: part.directDebit.orgId,
          apiKeys: [...(base.directDebit?.apiKeys ?? []), ...part.directDebit.apiKeys],
          customers: [...(base.directDebit?.customers ?? []), ...part.directDebit.customers],
          instruments: [...(base.directDebit?.instruments ?? []), ...part.directDebit.instruments],
          ...((part.directDebit.webhook ?? base.directDebit?.webhook)
            ? { webhook: (part.directDebit.webhook ?? base.directDebit?.webhook)! }
            : {}),
        }
      : base.directDebit,
    cash: [...base.cash, ...(part.cash ?? [])],
    bearer: {
      billpay: [...base.bearer.billpay, ...(part.bearer?.billpay ?? [])],
      'gift-cards': [...base.bearer['gift-cards'], ...(part.bearer?.['gift-cards'] ?? [])],
      lottery: [...base.bearer.lottery, ...(part.bearer?.lottery ?? [])],
    },
  };
}
