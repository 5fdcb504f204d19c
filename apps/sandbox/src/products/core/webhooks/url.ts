// The delivery requirements of a core webhook URL: public HTTPS. The platform cannot reach a
// private address, so the sandbox rejects one as the platform would; with
// settings.allowLocalWebhookUrls it makes one exception, the loopback host (http or https), so a
// developer's receiver on their own machine can be registered.
import { isIP } from 'node:net';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '::1']);

function privateIpv4(address: string): boolean {
  const [a = 0, b = 0] = address.split('.').map(Number);
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    a >= 224 // multicast and reserved
  );
}

function privateIpv6(address: string): boolean {
  const a = address.toLowerCase();
  if (a === '::' || a === '::1') return true;
  const mapped = a.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/);
  if (mapped) return privateIpv4(mapped[1]!);
  if (a.startsWith('::ffff:')) return true; // an IPv4-mapped address in hex form: not worth the risk
  return /^f[cd]/.test(a) || /^fe[89ab]/.test(a) || a.startsWith('ff'); // unique-local, link-local, multicast
}

/** Why `raw` cannot receive deliveries, or undefined when it can. Never echoes the URL (it may carry secrets). */
export function webhookUrlProblem(raw: string, allowLocal: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url is not an absolute URL.';
  }
  // WHATWG keeps IPv6 hosts in brackets and lower-cases host names.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (allowLocal && LOOPBACK_HOSTS.has(host) && (url.protocol === 'http:' || url.protocol === 'https:'))
    return undefined;
  if (url.protocol !== 'https:') return 'url must use https (a public HTTPS URL receives the deliveries).';
  if (url.username || url.password)
    return 'url must not carry credentials: the platform authenticates with the webhook token.';
  const family = isIP(host);
  if (family === 4 && privateIpv4(host))
    return 'url points to a private or reserved address the platform cannot reach.';
  if (family === 6 && privateIpv6(host))
    return 'url points to a private or reserved address the platform cannot reach.';
  if (family === 0) {
    if (
      host === 'localhost' ||
      host.endsWith('.localhost') ||
      host.endsWith('.local') ||
      host.endsWith('.internal') ||
      host.endsWith('.home.arpa')
    ) {
      return 'url points to a local host name the platform cannot reach.';
    }
    if (!host.includes('.')) return 'url must use a public, fully qualified host name.';
  }
  return undefined;
}
