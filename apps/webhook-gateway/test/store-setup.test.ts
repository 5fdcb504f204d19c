// The gateway applies the store's and the ledger's migration sets at start-up, whatever the
// database held: on a database with only the store's tables (as the store's set was before its
// partitions) it adds the ledger's, so a redelivery with another body is recorded as a conflict
// (ledger_conflicts) by the ledger's batch append, in the statement that answers it. A database
// whose event store was partitioned with the store's set alone is refused with what to do. On
// PGlite, and on PostgreSQL when DATABASE_URL is set.
import { randomUUID } from 'node:crypto';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { migrate } from '@paykit/store';
import { testDatabases, type TestDatabaseKind } from '@paykit/store/testing';
import { describe, expect, it } from 'vitest';
import { START_TIMEOUT_MS, bearer, moneyInEnvelope, post, startTestGateway } from './helpers.ts';

/** The kind's databases with the store's set only, as it was before the partitioned event store (0023). */
const storeOnlyBeforePartitions = (kind: TestDatabaseKind): TestDatabaseKind => ({
  name: kind.name,
  open: async () => {
    const opened = await kind.open({ migrate: false });
    await migrate(opened.db, [], { before: '0023' });
    return opened;
  },
});

// The store's set only: what the gateway finds is what it migrates.
for (const kind of testDatabases()) {
  describe(`the gateway's store on ${kind.name}`, () => {
    it(
      "adds the ledger's set to a database with the store's only, and records a redelivery with another body",
      async () => {
        const t = await startTestGateway(storeOnlyBeforePartitions(kind));
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

    it("refuses the ledger's set on a store already partitioned alone, saying what to do", async () => {
      const opened = await kind.open();
      try {
        await expect(migrate(opened.db, [ledgerMigrations])).rejects.toThrow(
          /@paykit\/ledger's migration 0003_ledger \(and \d+ more\) predates the store's 0023_partitioned_events, which this database already has: .*Migrate a new database with every set it will hold from the start/,
        );
      } finally {
        await opened.drop();
      }
    });
  });
}
