// Load the scenarios put through the platform: credits (MONEY_IN) to the seed's account, each a
// new transaction with its own id_msg, triggered `parallel` at a time through the sandbox.
import type { Stack } from './stack.ts';
import { ACME_CLABE } from './stack.ts';

export interface CreditLoad {
  /** Credits triggered so far. */
  readonly sent: number;
  /** The transaction ids, once every credit is triggered. */
  done: Promise<string[]>;
}

export function sendCredits(stack: Stack, count: number, parallel = 8): CreditLoad {
  let sent = 0;
  const ids: string[] = [];
  const one = async (index: number) => {
    const answer = await stack.sandbox.control.triggerIncomingSpei({
      body: {
        beneficiaryClabe: ACME_CLABE,
        amount: `${100 + (index % 900)}.${String(index % 100).padStart(2, '0')}`,
        numericReference: String(1 + (index % 9_999_999)),
      },
    });
    if (answer.status !== 200)
      throw new Error(`the sandbox refused credit ${index} (${answer.status}): ${JSON.stringify(answer.body)}`);
    ids.push(answer.body.transactionId);
    sent++;
  };
  let next = 0;
  const lane = async () => {
    while (next < count) await one(next++);
  };
  const done = Promise.all(Array.from({ length: Math.min(parallel, count) }, lane)).then(() => ids);
  return {
    get sent() {
      return sent;
    },
    done,
  };
}

/** Resolves once `condition` holds, checking every 10 ms; throws after `timeoutMs` naming `what`. */
export async function until(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
