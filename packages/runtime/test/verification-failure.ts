// Shared by the tests of webhook verification (here and in the cash client): the error a check
// threw, and everything it could show, to prove no secret is in it.
import { expect } from 'vitest';
import { WebhookVerificationError } from '../src/signing.ts';

/** The WebhookVerificationError `run` throws; fails the test when it throws nothing or something else. */
export function failure(run: () => unknown): WebhookVerificationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return error as WebhookVerificationError;
  }
  throw new Error('expected a WebhookVerificationError');
}

/** Everything a thrown error could show: message, string form, JSON, stack. */
export function everythingShown(error: Error): string {
  return [error.message, String(error), JSON.stringify(error), error.stack ?? '', JSON.stringify(Object.entries(error))].join('\n');
}
