// Held credits in the console: listed with what the gateway held them for and decides now, kept out
// of money in, and released by an operator's POST (with the page's CSRF token) once the gateway
// accepts them; a POST without the token releases nothing, and neither does one whose audit record
// cannot be written.
import { randomUUID } from 'node:crypto';
import { listReleases, reconcileOnce } from '@paykit/ledger';
import { createEventStore } from '@paykit/store';
import { creditEvent, testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestConsole, type TestConsole } from './test-console.ts';

const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1];

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`held credits in the console on ${kind.name}`, () => {
    let opened: OpenedTestDatabase;
    let server: TestConsole;
    const id = randomUUID();
    let seq = '';

    beforeAll(async () => {
      opened = await kind.open();
      const store = createEventStore(opened.db);
      ({ seq } = await store.append(
        creditEvent(
          { id, beneficiary_account: '646180000000000993', amount: '970.00', tracking_key: 'EXT-HELD-1' },
          { outcome: 'stored', reason: 'held for review: account 646180000000000993 is unknown', answerStatus: 202 },
        ),
      ));
      await reconcileOnce(opened.db);
      await store.recordReplay({
        seq,
        drift: [],
        outcome: 'accepted',
        reason: null,
        answerStatus: 201,
        refundReason: null,
      });
      await store.close();
      server = await startTestConsole(opened.db);
    }, 120_000);
    afterAll(async () => {
      await server?.close();
      await opened?.drop();
    });

    it('keeps a held credit out of money in, and releases it on a POST with the CSRF token', async () => {
      const overview = await server.get('/?from=2026-11-01&to=2026-11-30');
      expect(overview.text).toContain('<strong data-card="money-in">MXN 0.00</strong>');
      expect(overview.text).toContain('data-card="held">MXN 970.00</a>');
      const page = await server.get('/held');
      expect(page.text).toContain('held for review: account 646180000000000993 is unknown');
      expect(page.text).toContain(`<form method="post" action="/held/${id}/release">`);
      const csrf = csrfOf(page.text)!;
      const post = (fields: Record<string, string>) =>
        fetch(`${server.url}/held/${id}/release`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url, cookie: page.cookies },
          body: new URLSearchParams(fields).toString(),
        });
      expect((await post({})).status).toBe(403);
      expect(await listReleases(opened.db)).toEqual([]);
      // A release whose audit record cannot be written is not made: the two commit together.
      await opened.db.query(
        "ALTER TABLE console_audit ADD CONSTRAINT test_no_release CHECK (action <> 'release-held' OR outcome <> 'success')",
      );
      try {
        expect((await post({ csrf })).status).toBe(503);
        expect(await listReleases(opened.db)).toEqual([]);
      } finally {
        await opened.db.query('ALTER TABLE console_audit DROP CONSTRAINT test_no_release');
      }
      const done = await post({ csrf });
      expect(done.status).toBe(303);
      expect(done.headers.get('location')).toBe('/held');
      expect((await listReleases(opened.db)).map((r) => [r.transactionId, r.releasedBy])).toEqual([[id, 'console']]);
      const { rows: audited } = await opened.db.query<{ target: string; outcome: string }>(
        "SELECT target, outcome FROM console_audit WHERE action = 'release-held' ORDER BY id",
      );
      expect(audited).toEqual([
        { target: id, outcome: 'failure' },
        { target: id, outcome: 'success' },
      ]);
      expect((await server.get('/held')).text).toContain('No credit is held.');
      const after = await server.get('/?from=2026-11-01&to=2026-11-30');
      expect(after.text).toContain('<strong data-card="money-in">MXN 970.00</strong>');
      // Once released, a second POST is a clear 400, not a second release.
      const again = await post({ csrf });
      expect(again.status).toBe(400);
      expect(await again.text()).toMatch(/is not held/);
    });
  });
}
