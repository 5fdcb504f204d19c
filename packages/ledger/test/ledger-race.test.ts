// Recording and applying at once: thousands of transfers recorded by several recorders while
// several workers apply their status updates, credits applied while their receivables are
// registered, every fact late on its own and some delivered twice. Whatever the interleaving,
// nothing is left stuck or orphaned, and the books hold. On PostgreSQL the recorders and workers are separate pools
// (as separate processes would be); PGlite is one connection, so its run checks the same outcome
// with every interleaving of whole transactions.
import { describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '@paykit/store';
import { testDatabases } from '@paykit/store/testing';
import { ledgerMigrations } from '../src/migrations.ts';
import { checkBooks } from '../src/index.ts';
import { runRace } from './support/ledger-race.ts';

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`the race between recording and applying, on ${kind.name}`, () => {
    it('leaves no transfer stuck and no owned credit orphaned', { timeout: 300_000 }, async () => {
      const opened = await kind.open();
      const extra: Database[] = [];
      try {
        const pool = async () => {
          if (opened.url === undefined) return opened.db;
          const db = await openDatabase({ databaseUrl: opened.url });
          extra.push(db);
          return db;
        };
        const recorders = [await pool(), await pool(), await pool()];
        const workers = [await pool(), await pool(), await pool()];
        // PGlite runs whole transactions one after another, so its run checks the outcome, not the
        // contention, and needs fewer transfers and credits for it; PostgreSQL, truly concurrent, runs more.
        const transfers = kind.name === 'postgres' ? 3_000 : 600;
        const credits = kind.name === 'postgres' ? 600 : 200;
        const verdict = await runRace(opened.db, {
          transfers,
          credits,
          recorders,
          workers,
          maxDelayMs: 40,
          seed: 19,
        });
        console.info(`race on ${kind.name}: ${JSON.stringify(verdict)}`);
        expect(verdict).toMatchObject({ transfers, credits, stuck: 0, orphaned: 0, conflicts: 0, parked: 0 });
        // The journal the recorders and workers wrote between them: every posting balances and
        // every item's entries are what its facts say, however they interleaved.
        expect(await checkBooks(opened.db)).toMatchObject({ ok: true, unbalancedPostings: [], itemsOff: [] });
      } finally {
        for (const db of extra) await db.close();
        await opened.drop();
      }
    });
  });
}
