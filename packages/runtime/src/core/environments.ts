// Where each product lives. The platform reference shows no staging or production address for
// any product ("not shown"), so only the sandbox has a default: anything else needs a baseUrl.
import { ConfigurationError } from './errors.ts';

export type Environment = 'sandbox' | 'staging' | 'production';
export type ProductName = 'core' | 'direct-debit' | 'cash' | 'remittance' | 'billpay' | 'gift-cards' | 'lottery';

export const ENVIRONMENTS: readonly Environment[] = ['sandbox', 'staging', 'production'];
export const PRODUCTS: readonly ProductName[] = [
  'core',
  'direct-debit',
  'cash',
  'remittance',
  'billpay',
  'gift-cards',
  'lottery',
];

/** The local sandbox (apps/sandbox): every product on one port under its own prefix. */
export const SANDBOX_ORIGIN = 'http://127.0.0.1:4010';

/**
 * The base URL a client of `product` sends its requests to. An explicit `baseUrl` always wins
 * (a sandbox on another port, a proxy, the real platform); without one, only the sandbox has an
 * address. A trailing slash is dropped so that generated paths (`/v1/...`) join cleanly.
 */
export function resolveBaseUrl(product: ProductName, environment: Environment, baseUrl?: string): string {
  if (!PRODUCTS.includes(product)) {
    throw new ConfigurationError(`Unknown product "${String(product)}": use one of ${PRODUCTS.join(', ')}.`);
  }
  if (!ENVIRONMENTS.includes(environment)) {
    throw new ConfigurationError(
      `Unknown environment "${String(environment)}": use one of ${ENVIRONMENTS.join(', ')}.`,
    );
  }
  if (baseUrl !== undefined && baseUrl !== '') {
    let parsed: URL;
    try {
      parsed = new URL(baseUrl);
    } catch {
      throw new ConfigurationError(
        `baseUrl for ${product} is not an absolute URL: pass something like "https://api.example.com/${product}".`,
      );
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new ConfigurationError(
        `baseUrl for ${product} must use http or https, not ${parsed.protocol.replace(/:$/, '')}.`,
      );
    }
    if (parsed.username !== '' || parsed.password !== '') {
      // Credentials in a URL end up in logs and error messages: they belong in headers.
      throw new ConfigurationError(
        `baseUrl for ${product} must not carry a user name or password: pass credentials through the client's auth options.`,
      );
    }
    return baseUrl.replace(/\/+$/, '');
  }
  if (environment === 'sandbox') return `${SANDBOX_ORIGIN}/${product}`;
  throw new ConfigurationError(
    `pass baseUrl: the platform reference does not show the ${environment} URL of ${product}. ` +
      `Use the address given to you at onboarding for ${environment}.`,
  );
}
