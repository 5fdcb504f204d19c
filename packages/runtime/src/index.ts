// @paykit/runtime: the request pipeline and the platform's domain primitives, shared by every client.
export * from './environments.ts';
export * from './logger.ts';
export * from './redact.ts';
export * from './errors.ts';
export * from './retry.ts';
export * from './transport.ts';
export * from './drift.ts';
export * from './money.ts';
export * from './time.ts';
export * from './clabe.ts';
export * from './card.ts';
export * from './rfc.ts';
export * from './idempotency.ts';
export * from './signing.ts';
export * from './invoke.ts';
export * from './client-context.ts';
export * from './sdk-client.ts';
