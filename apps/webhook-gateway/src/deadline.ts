// The platform waits 5 s for an answer: every store round trip of a delivery shares one budget
// (GATEWAY_COMMIT_TIMEOUT_MS from arrival). Past it the delivery is answered 503 and redelivered.
import { StoreUnavailableError } from '@paykit/store';

/** `work`, or a StoreUnavailableError once performance.now() passes `deadline` (work keeps running; its late result is dropped). */
export function beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T> {
  const remaining = deadline - performance.now();
  work.catch(() => {});
  if (remaining <= 0) return Promise.reject(new StoreUnavailableError('the store did not answer within the delivery budget (GATEWAY_COMMIT_TIMEOUT_MS)'));
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailableError('the store did not answer within the delivery budget (GATEWAY_COMMIT_TIMEOUT_MS)')), remaining);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
