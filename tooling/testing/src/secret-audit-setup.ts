// setupFiles side of the secret audit: records this worker's console, stdout, stderr and warnings,
// the error of every test that fails, every log entry of every client transport the suite
// creates, and every error thrown through the runtime's invoke (what the clients raise).
// eslint-disable-next-line no-restricted-imports -- the whole module, for vi.mock's importOriginal: no domain name is read through it.
import type * as Runtime from '@paykit/runtime';
import { afterEach, vi } from 'vitest';
import { describeError, record } from './secret-audit.ts';

vi.mock('@paykit/runtime', async (importOriginal) => {
  const runtime = await importOriginal<typeof Runtime>();
  const recording =
    (logger?: Runtime.Logger): Runtime.Logger =>
    (entry) => {
      record('log entry', JSON.stringify(entry));
      logger?.(entry);
    };
  return {
    ...runtime,
    createTransport: (options: Runtime.TransportOptions) =>
      runtime.createTransport({ ...options, logger: recording(options.logger) }),
    createClientContext: (...[product, options, overrides]: Parameters<typeof runtime.createClientContext>) =>
      runtime.createClientContext(product, { ...options, logger: recording(options.logger) }, overrides),
    invoke: async (...args: Parameters<typeof runtime.invoke>) => {
      try {
        return await runtime.invoke(...args);
      } catch (error) {
        record('client error', `${describeError(error)} ${JSON.stringify(error)}`);
        throw error;
      }
    },
  };
});

for (const stream of ['stdout', 'stderr'] as const) {
  const original = process[stream].write.bind(process[stream]);
  process[stream].write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    record(stream, typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write;
}
for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
  const original = console[level].bind(console);
  console[level] = (...args: unknown[]) => {
    record(`console.${level}`, args.map((a) => (typeof a === 'string' ? a : describeError(a))).join(' '));
    original(...args);
  };
}
process.on('warning', (warning) => record('warning', describeError(warning)));

afterEach((context) => {
  for (const error of context.task.result?.errors ?? []) record('test error', describeError(error));
});
