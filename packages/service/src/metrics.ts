// Every app's Prometheus registry: its own (never prom-client's global one, so two apps in one
// test process never mix), with the process's default metrics under the app's prefix.
import { Registry, collectDefaultMetrics } from 'prom-client';

/** A registry for one app; `defaultMetrics` false leaves out the process metrics (tests). */
export function createAppRegistry(options: { prefix: string; defaultMetrics?: boolean | undefined }): Registry {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: options.prefix });
  return registry;
}
