// What every product client shares: its common options, and the pipeline and invoke context
// built from them (one place, so the seven clients cannot drift apart).
import type { DriftReport } from './drift.ts';
import { resolveBaseUrl, type Environment, type ProductName } from './environments.ts';
import type { InvokeContext } from './invoke.ts';
import { scrubbingLogger, type Logger } from './logger.ts';
import { createTransport, type Transport } from './transport.ts';
import { packageVersion, userAgent } from '../internal/user-agent.ts';

export interface ClientOptions {
  /** sandbox → http://127.0.0.1:4010/<product>; staging and production need `baseUrl` (the reference does not show their addresses). */
  environment: Environment;
  baseUrl?: string;
  /** Per attempt, in ms (default 30 000). */
  timeoutMs?: number;
  /** Retries of requests that are safe to repeat (default 2). */
  maxRetries?: number;
  /** A custom fetch (a proxy agent, a test double). */
  fetch?: typeof fetch;
  /** Sees every request, response and retry, with secrets redacted. */
  logger?: Logger;
  /** Told when a response differs from the spec (the data is returned anyway). */
  onDrift?: (report: DriftReport) => void;
  /** Throw a DriftError instead of reporting drift (for tests). */
  strict?: boolean;
}

export interface ClientContext {
  baseUrl: string;
  transport: Transport;
  ctx: InvokeContext;
  /** Headers for the SDK client's configuration: `User-Agent: paykit-<product>/<version> node/<version>`. */
  headers: Record<string, string>;
}

export interface ClientContextOverrides {
  /** Replaces options.fetch (cash wraps it to sign). */
  fetch?: typeof fetch;
  /** The client's own secrets (API key, client secret, current token), scrubbed by value from log entries and errors. */
  secrets?: () => readonly (string | undefined)[];
  /** The client module's `import.meta.url`: the version in its package.json goes into the User-Agent. */
  moduleUrl?: string;
}

/** The base URL, transport, invoke context and SDK headers of one product client. */
export function createClientContext(
  product: ProductName,
  options: ClientOptions,
  overrides: ClientContextOverrides = {},
): ClientContext {
  const baseUrl = resolveBaseUrl(product, options.environment, options.baseUrl);
  const { secrets } = overrides;
  const transport = createTransport({
    product,
    timeoutMs: options.timeoutMs,
    retry: options.maxRetries === undefined ? undefined : { maxRetries: options.maxRetries },
    fetch: overrides.fetch ?? options.fetch,
    logger: options.logger && secrets ? scrubbingLogger(options.logger, secrets) : options.logger,
  });
  const ctx: InvokeContext = { product, transport, drift: { onDrift: options.onDrift, strict: options.strict } };
  if (secrets) ctx.secrets = secrets;
  const version = overrides.moduleUrl === undefined ? '0.0.0' : packageVersion(overrides.moduleUrl);
  return { baseUrl, transport, ctx, headers: { 'User-Agent': userAgent(product, version) } };
}
