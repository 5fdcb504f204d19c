// What every product of the sandbox shares: the clock, seeded randomness, settings, counters,
// the delivery queue and the faults in force.
import type { Faults, Seed } from '@paykit/contracts';
import type { FastifyInstance } from 'fastify';
import type { SandboxClock } from './clock.ts';
import type { Counters } from './counters.ts';
import type { DeliveryQueue } from './deliveries.ts';
import type { SeededRandom } from './random.ts';
import type { SandboxSettings } from './settings.ts';

export interface SandboxRuntime {
  clock: SandboxClock;
  random: SeededRandom;
  settings: SandboxSettings;
  counters: Counters;
  deliveries: DeliveryQueue;
  faults: Faults;
}

/** One product of the platform, served under its own prefix. */
export interface SandboxProduct {
  readonly name: 'core' | 'direct-debit' | 'cash' | 'remittance' | 'billpay' | 'gift-cards' | 'lottery';
  /** Registers the product's routes; `app` is already scoped to `/<name>`. */
  register(app: FastifyInstance): void | Promise<void>;
  /** Adds a seed's entries (ids already present are replaced). */
  load(seed: Partial<Seed>): void;
  /** Forgets everything (the seed is loaded again afterwards). */
  reset(): void;
  /** The body of a 500 in this product's error format (for injected faults). */
  errorBody(status: number, message: string): unknown;
}
