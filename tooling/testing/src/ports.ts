// A TCP port that was free a moment ago on 127.0.0.1, for servers that cannot listen on port 0
// (a registry's URL known before it starts, a gateway restarted on the port its webhooks point at).
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('the probe socket has no TCP port')),
      );
    });
  });
}
