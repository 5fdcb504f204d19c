// The conflicts are read in the order of their number, not of its text (10 after 9): the select
// list names its text `id`, and a list ordered by that name would page as text while its cursor
// compares numbers, repeating some conflicts and skipping others.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allConflicts, listConflicts, pageConflicts } from '../src/index.ts';
import { testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';
import { ledgerMigrations } from '../src/migrations.ts';

const N = 25;

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`the conflicts' order on ${kind.name}`, () => {
    let opened: OpenedTestDatabase;

    beforeAll(async () => {
      opened = await kind.open();
      await opened.db.query(`INSERT INTO ledger_conflicts (kind, transaction_id, event_type, first_seq, amount, detail)
                             SELECT 'credit', 'tx-' || g, 'MONEY_IN', g, 10.00, 'test' FROM generate_series(1, ${N}) AS g`);
    });

    afterAll(async () => {
      await opened?.drop();
    });

    const numbers = (rows: { id: string }[]) => rows.map((r) => Number(r.id));
    const descending = Array.from({ length: N }, (_, i) => N - i);

    it('pages through every conflict once, newest first and oldest first', async () => {
      for (const [sort, expected] of [
        ['-id', descending],
        ['id', [...descending].reverse()],
      ] as const) {
        const seen: number[] = [];
        let after: string | undefined;
        do {
          const page = await pageConflicts(opened.db, { sort, limit: 4, after });
          seen.push(...numbers(page.rows));
          after = page.next ?? undefined;
        } while (after);
        expect(seen).toEqual(expected);
      }
    });

    it('lists and exports newest first by number', async () => {
      expect(numbers(await listConflicts(opened.db))).toEqual(descending);
      const all: { id: string }[] = [];
      for await (const conflict of allConflicts(opened.db)) all.push(conflict);
      expect(numbers(all)).toEqual(descending);
    });
  });
}
