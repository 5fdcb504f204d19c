export { startSandbox, type Sandbox, type SandboxOptions, type Products } from './server.ts';
export { SandboxClock, type ClockOptions, type ClockMode } from './clock.ts';
export { DEFAULT_SEED, DEFAULT_SEED_INPUT, CLIENT_ID, OWNERS, loadSeedFile } from './seed.ts';
export { DEFAULT_SETTINGS, type SandboxSettings, type SettingsInput } from './settings.ts';
export type { Delivery } from '@paykit/contracts';
