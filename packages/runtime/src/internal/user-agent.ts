// The User-Agent every client sends: "paykit-<product>/<version> node/<version>", so the
// platform's logs (and ours) can tell which client and release made a request.
import { readFileSync } from 'node:fs';
import type { ProductName } from '../core/environments.ts';

const versions = new Map<string, string>();

/**
 * The version in the package.json next to a client's source or build directory (`moduleUrl` is
 * the client module's `import.meta.url`; its package.json is one directory up). "0.0.0" when it
 * cannot be read (a bundled copy): the header is informative, never a reason to fail.
 */
export function packageVersion(moduleUrl: string): string {
  const url = new URL('../package.json', moduleUrl).href;
  let version = versions.get(url);
  if (version === undefined) {
    try {
      const parsed = JSON.parse(readFileSync(new URL(url), 'utf8')) as { version?: unknown };
      version = typeof parsed.version === 'string' && /^[\w.+-]{1,64}$/.test(parsed.version) ? parsed.version : '0.0.0';
    } catch {
      version = '0.0.0';
    }
    versions.set(url, version);
  }
  return version;
}

/** "paykit-core/1.4.0 node/24.3.0" */
export function userAgent(product: ProductName, version: string): string {
  return `paykit-${product}/${version} node/${process.versions.node}`;
}
