// Listening and stopping: the address the gateway answers on, and a close that stops taking
// deliveries, waits for those in flight and their commits, then closes the store.
import type { EventStore } from '@paykit/store';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { GatewayConfig } from './config.ts';

/** Listens on config.host:config.port (0: a free port); the URL says the port taken. */
export async function listen(app: FastifyInstance, config: GatewayConfig): Promise<{ url: string; port: number }> {
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return { url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`, port };
}

/** The gateway's close, the same promise however often it is called. */
export function stopper(
  app: FastifyInstance,
  events: EventStore,
  releaseDatabase: () => Promise<void>,
  logger: Logger,
): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () =>
    (closing ??= (async () => {
      // A keep-alive connection busy when the close began turns idle once answered, and would
      // hold the close for its whole keep-alive (72 s): each is closed as soon as it is idle.
      const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
      try {
        await app.close();
      } finally {
        clearInterval(sweep);
      }
      await events.close();
      await releaseDatabase();
      logger.flush?.();
    })());
}
