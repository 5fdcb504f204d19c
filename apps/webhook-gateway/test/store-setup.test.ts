// The gateway applies the store's and the ledger's migration sets at start-up, whatever the
// database held: on a database with only the store's tables it adds the ledger's, so a redelivery
// with another body is recorded as a conflict (ledger_conflicts) by the ledger's batch append, in
// the statement that answers it. On PGlite, and on PostgreSQL when DATABASE_URL is set.
import { randomUUID } from 'node:crypto';
import { testDatabases } from '@paykit/store/testing';
import { describe, expect, it } from 'vitest';
import { START_TIMEOUT_MS, bearer, moneyInEnvelope, post, startTestGateway } from './helpers.ts';

// The store's set only: what the gateway finds is what it migrates.
for (const kind of testDatabases()) {
  describe(`the gateway's store on ${kind.name}`, () => {
    it(
      "adds the ledger's set to a database with the store's only, and records a redelivery with another body",
      async () => {
        const t = await startTestGateway(kind);
        try {
          const owners = await t.db.query<{ owner: string; n: number }>(
            'SELECT owner, count(*)::int AS n FROM schema_migrations GROUP BY owner ORDER BY owner',
          );
          expect(owners.rows.map((row) => row.owner)).toEqual(['@paykit/ledger', '@paykit/store']);
          const event = moneyInEnvelope({ id: randomUUID(), amount: '150.00' });
          const first = await post(`${t.url}/webhooks/core/money-in`, JSON.stringify(event), bearer());
          const other = { ...event, body: { ...(event.body as Record<string, unknown>), amount: '151.00' } };
          const again = await post(`${t.url}/webhooks/core/money-in`, JSON.stringify(other), bearer());
          // The redelivery is answered as the first delivery was.
          expect(again.status).toBe(first.status);
          const conflicts = await t.db.query<{ kind: string; body: string }>(
            "SELECT kind, convert_from(raw_body, 'UTF8') AS body FROM ledger_conflicts WHERE dedupe_key = $1",
            [`core:MONEY_IN:${event.id_msg as string}`],
          );
          expect(conflicts.rows).toEqual([{ kind: 'redelivery', body: JSON.stringify(other) }]);
        } finally {
          await t.close();
        }
      },
      START_TIMEOUT_MS,
    );
  });
}
