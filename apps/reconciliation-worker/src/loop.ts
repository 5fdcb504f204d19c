// The worker's loop: apply what is waiting, then wait `pollMs` (or less, when a batch came back
// full). Several workers may run it against one PostgreSQL: claims never overlap.
import { reconcileOnce, type Database, type ReconcileResult } from '@paykit/store';

export interface ApplyLoop {
  /** Totals since start. */
  readonly totals: ReconcileResult;
  /** The last error, if the last round failed (the loop keeps going). */
  readonly lastError: string | null;
  /** The last round ended because nothing was left to claim (false until a round has done so). */
  readonly caughtUp: boolean;
  stop(): Promise<void>;
}

export function startApplyLoop(db: Database, options: { batchSize: number; pollMs: number; leaseSeconds: number; onError?: (error: unknown) => void }): ApplyLoop {
  const controller = new AbortController();
  const totals: ReconcileResult = { batches: 0, applied: 0, parked: 0 };
  let lastError: string | null = null;
  let caughtUp = false;
  const sleep = (ms: number) => new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    controller.signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
  });
  const running = (async () => {
    while (!controller.signal.aborted) {
      try {
        const round = await reconcileOnce(db, { batchSize: options.batchSize, leaseSeconds: options.leaseSeconds, maxBatches: 20, signal: controller.signal });
        totals.batches += round.batches;
        totals.applied += round.applied;
        totals.parked += round.parked;
        lastError = null;
        caughtUp = round.batches < 20;
        if (!caughtUp) continue;
      } catch (error) {
        caughtUp = false;
        lastError = error instanceof Error ? error.message : String(error);
        options.onError?.(error);
      }
      await sleep(options.pollMs);
    }
  })();
  return {
    totals,
    get lastError() {
      return lastError;
    },
    get caughtUp() {
      return caughtUp;
    },
    async stop() {
      controller.abort();
      await running;
    },
  };
}
