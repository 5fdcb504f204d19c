// describe() for the scenarios that run behind HAProxy on PostgreSQL (replicas, console-replicas):
// skipped without DATABASE_URL, as the other multi-process scenarios; where haproxy is required (CI,
// PAYKIT_REQUIRE_HAPROXY=1) and missing, a failing test naming what to install; elsewhere skipped
// with the reason printed.
import { describe, it } from 'vitest';
import { haproxyMissing, HAPROXY_REQUIRED } from '../src/haproxy.ts';

export function describeWithHaproxy(name: string, body: () => void): void {
  const missing = process.env.DATABASE_URL ? haproxyMissing() : null;
  if (!process.env.DATABASE_URL) {
    describe.skip(name, body);
  } else if (missing === null) {
    describe(name, body);
  } else if (HAPROXY_REQUIRED) {
    describe(name, () => {
      it('has the haproxy it requires', () => {
        throw new Error(`HAProxy is required here (CI or PAYKIT_REQUIRE_HAPROXY=1) and ${missing}.`);
      });
    });
  } else {
    console.warn(`skipped "${name}": ${missing}; set PAYKIT_REQUIRE_HAPROXY=1 to make this a failure.`);
    describe.skip(name, body);
  }
}
