// Two workers (two connection pools, as two processes would have) claim from one PostgreSQL at
// once: 2,000 events in 20 batches, each applied exactly once — the applied counts add up to the events, and
// every ledger row exists once. PostgreSQL only: PGlite is one connection in one process.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createEventStore, openDatabase } from '@paykit/store';
import { reconcileOnce, recordOutbound } from '../src/index.ts';
import { testDatabases } from '@paykit/store/testing';
import { ledgerMigrations } from '../src/migrations.ts';
import { coreEvent, outbound } from './support/ledger.ts';

const postgres = testDatabases([ledgerMigrations]).find((kind) => kind.name === 'postgres');

describe.skipIf(postgres === undefined)('two workers on PostgreSQL', () => {
  it('apply 2,000 events between them, each exactly once', { timeout: 120_000 }, async () => {
    const opened = await postgres!.open();
    const second = await openDatabase({ databaseUrl: opened.url! });
    try {
      const transfers = Array.from({ length: 500 }, () => outbound());
      for (const transfer of transfers) await recordOutbound(opened.db, transfer);
      const store = createEventStore(opened.db);
      const statuses = ['IN_PROGRESS', 'LIQUIDATED'];
      const events = transfers.flatMap((t) => [
        ...statuses.map((status) =>
          coreEvent('STATUS_UPDATE', {
            id: t.transactionId,
            tracking_key: t.trackingKey,
            message_type: 'SPEI',
            status,
            update_at: '2026-11-21T10:16:00-06:00',
          }),
        ),
        coreEvent('MONEY_IN', {
          id: randomUUID(),
          beneficiary_account: '646180000000000012',
          payer_account: '012180000045678907',
          payer_institution: '40012',
          amount: t.amount,
          tracking_key: 'EXT',
          sub_category: 'SPEI_CREDIT',
          owner_id: 'o',
        }),
        coreEvent('STATUS_UPDATE', { id: randomUUID(), tracking_key: 'x', message_type: 'SPEI', status: 'LIQUIDATED' }),
      ]);
      expect(events).toHaveLength(2_000);
      for (let i = 0; i < events.length; i += 500)
        await Promise.all(events.slice(i, i + 500).map((event) => store.append(event)));
      await store.close();

      const [a, b] = await Promise.all([
        reconcileOnce(opened.db, { batchSize: 100 }),
        reconcileOnce(second, { batchSize: 100 }),
      ]);
      expect(a.applied + b.applied).toBe(2_000);
      expect(a.applied).toBeGreaterThan(0);
      expect(b.applied).toBeGreaterThan(0);
      const count = async (sql: string) => Number((await opened.db.query<{ n: string }>(sql)).rows[0]!.n);
      expect(
        await count(
          'SELECT count(*) AS n FROM webhook_events e WHERE NOT EXISTS (SELECT 1 FROM webhook_events_applied a WHERE a.seq = e.seq)',
        ),
      ).toBe(0);
      expect(await count('SELECT count(*) AS n FROM webhook_events_applied')).toBe(2_000);
      expect(await count('SELECT count(*) AS n FROM ledger_status_history')).toBe(1_500);
      expect(await count('SELECT count(*) AS n FROM ledger_credits')).toBe(500);
      expect(await count("SELECT count(*) AS n FROM ledger_outbound WHERE status = 'LIQUIDATED'")).toBe(500);
    } finally {
      await second.close();
      await opened.drop();
    }
  });
});
