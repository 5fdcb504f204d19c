// What a thrown error could show anyone who logs or serialises it, for tests that prove no secret
// is in it; and the error a check threw, failing the test when it threw nothing or something else.
import { expect } from 'vitest';

/** The error of class `kind` that `run` throws; fails the test when it throws nothing or something else. */
export function thrownBy<E extends Error>(run: () => unknown, kind: abstract new (...args: never[]) => E): E {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(kind);
    return error as E;
  }
  throw new Error(`expected a ${kind.name}`);
}

/** Everything a thrown error could show: message, string form, JSON, stack. */
export function everythingShown(error: Error): string {
  return [
    error.message,
    String(error),
    JSON.stringify(error),
    error.stack ?? '',
    JSON.stringify(Object.entries(error)),
  ].join('\n');
}
