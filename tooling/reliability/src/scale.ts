// How big a run is: `pnpm test:reliability` runs the full scenarios; `--reduced` (CI) runs each
// with fewer events and shorter outages, the same checks.
export const SCALE_ENV = 'PAYKIT_RELIABILITY_SCALE';

export type Scale = 'full' | 'reduced';

export function currentScale(): Scale {
  return process.env[SCALE_ENV] === 'full' ? 'full' : 'reduced';
}

/** The full figure, or the reduced one. */
export function scaled<T>(full: T, reduced: T): T {
  return currentScale() === 'full' ? full : reduced;
}
