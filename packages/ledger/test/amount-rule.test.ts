// The amount rule on the SQL side: paykit_amount (sql/functions/paykit_amount.sql) spells
// @paykit/contracts' AMOUNT_PATTERN and gives readAmount's verdict, and the same value, for every
// input of the one table (packages/contracts/fixtures/amounts); a MONEY_IN or REFUND whose amount
// breaks the rule is parked naming body.amount, as a missing amount always was, and one that keeps
// it applies. On PGlite, and on PostgreSQL when DATABASE_URL is set.
import { randomUUID } from 'node:crypto';
import { AMOUNT_PATTERN, readAmount } from '@paykit/contracts';
import { StoreInputError, loadFunctions, type NewEvent } from '@paykit/store';
import { eventStoreSuite, testDatabases } from '@paykit/store/testing';
import { ledgerMigrations } from '../src/migrations.ts';
import { AMOUNT_CASES as CASES, type AmountCase } from '@paykit/testing/amount-cases';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listItems, listParked, reconcileOnce, registerReceivable } from '../src/index.ts';
import { appendAll, moneyIn, refund } from './support/ledger.ts';

/** readAmount's verdict on the value the JSON text holds: the amount as numeric(18,2) prints it, or null. */
function tsAmount(c: AmountCase): string | null {
  const reading = readAmount(c.json === null ? undefined : JSON.parse(c.json));
  if (!reading.ok) return null;
  return `${reading.centavos / 100n}.${String(reading.centavos % 100n).padStart(2, '0')}`;
}

/** An event whose body.amount is exactly the JSON text given (absent when null), whatever JSON.stringify would write. */
function withAmount(event: NewEvent, json: string | null): NewEvent {
  const text = new TextDecoder().decode(event.rawBody);
  const spliced =
    json === null ? text.replace(/,?"amount":"__AMOUNT__"/, '') : text.replace('"__AMOUNT__"', () => json);
  return { ...event, rawBody: new TextEncoder().encode(spliced) };
}

describe('the amount rule in its function file', () => {
  it('spells AMOUNT_PATTERN, character for character', () => {
    const rule = loadFunctions([ledgerMigrations]).find((fn) => fn.name === 'paykit_amount');
    expect(rule, 'sql/functions/paykit_amount.sql').toBeDefined();
    expect(rule!.sql).toContain(`~ '${AMOUNT_PATTERN.source}'`);
  });

  it('has inputs of every kind in its table', () => {
    expect(CASES.filter((c) => c.valid).length).toBeGreaterThanOrEqual(5);
    expect(CASES.filter((c) => !c.valid).length).toBeGreaterThanOrEqual(30);
    expect(CASES.map((c) => tsAmount(c) !== null)).toEqual(CASES.map((c) => c.valid));
  });
});

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`the amount rule in SQL on ${kind.name}`, () => {
    const suite = eventStoreSuite(kind, { beforeAll, afterAll });

    it('paykit_amount gives readAmount verdict and value for every input of the table', async () => {
      const { rows } = await suite.opened.db.query<{ n: number; amount: string | null }>(
        `SELECT t.n, paykit_amount(t.json::jsonb)::text AS amount
         FROM unnest($1::text[]) WITH ORDINALITY AS t(json, n) ORDER BY t.n`,
        [CASES.map((c) => c.json)],
      );
      const sql = rows.map((row) => row.amount);
      expect(CASES.map((c, i) => [c.name, sql[i]])).toEqual(CASES.map((c) => [c.name, tsAmount(c)]));
    });

    it('parks a MONEY_IN whose amount breaks the rule, naming body.amount, and applies one that keeps it', async () => {
      const credits = CASES.map((c) => ({ c, event: withAmount(moneyIn({ amount: '__AMOUNT__' }), c.json) }));
      const seqs = await appendAll(
        suite.store,
        credits.map((x) => x.event),
      );
      await reconcileOnce(suite.opened.db);
      const parked = new Map((await listParked(suite.opened.db)).map((p) => [p.seq, p.reason]));
      const items = new Map((await listItems(suite.opened.db, { limit: 10_000 })).map((i) => [i.id, i]));
      credits.forEach(({ c, event }, i) => {
        const reason = parked.get(seqs[i]!);
        if (c.valid) {
          expect(reason, c.name).toBeUndefined();
          expect(items.get(event.transactionId!), c.name).toMatchObject({ kind: 'credit', amount: tsAmount(c) });
        } else {
          expect(reason, c.name).toMatch(
            /^MONEY_IN: body\.amount (is missing|.+ is not an amount): an amount is a decimal string/,
          );
          expect(items.has(event.transactionId!), c.name).toBe(false);
        }
      });
    });

    it('parks a REFUND whose amount breaks the rule, and reads a stated original amount that breaks it as not stated', async () => {
      const original = { id: randomUUID(), amount: '250.00' };
      const [credit] = await appendAll(suite.store, [moneyIn({ id: original.id, amount: original.amount })]);
      const bad = ['"0.00"', '250', '"250.0"'].map((json) =>
        withAmount(refund(original, { amount: '__AMOUNT__' }), json),
      );
      const badSeqs = await appendAll(suite.store, bad);
      await reconcileOnce(suite.opened.db);
      const parked = new Map((await listParked(suite.opened.db)).map((p) => [p.seq, p.reason]));
      expect(parked.has(credit!)).toBe(false);
      expect(badSeqs.map((seq) => parked.get(seq))).toEqual([
        expect.stringMatching(/^REFUND: body\.amount "0\.00" is not an amount/),
        expect.stringMatching(/^REFUND: body\.amount 250 is not an amount/),
        expect.stringMatching(/^REFUND: body\.amount "250\.0" is not an amount/),
      ]);
      const good = refund(original, { original_transaction_amount: 250 });
      const [goodSeq] = await appendAll(suite.store, [good]);
      await reconcileOnce(suite.opened.db);
      expect((await listParked(suite.opened.db)).some((p) => p.seq === goodSeq)).toBe(false);
      const { rows } = await suite.opened.db.query<{ amount: string; original_amount_stated: string | null }>(
        'SELECT amount::text, original_amount_stated::text FROM ledger_refunds WHERE transaction_id = $1',
        [good.transactionId],
      );
      expect(rows).toEqual([{ amount: '250.00', original_amount_stated: null }]);
    });

    it('registerReceivable takes an amount by the same rule, and says what is wrong with one that breaks it', async () => {
      for (const c of CASES) {
        const amount: unknown = c.json === null ? undefined : JSON.parse(c.json);
        const register = registerReceivable(suite.opened.db, {
          id: `INV-${randomUUID()}`,
          beneficiaryAccount: '646180000000000025',
          amount: amount as string,
          dueDate: '2026-12-31',
        });
        if (c.valid) await expect(register, c.name).resolves.toMatchObject({ amount: tsAmount(c) });
        else {
          const reading = readAmount(amount);
          await expect(register, c.name).rejects.toThrow(StoreInputError);
          await expect(register, c.name).rejects.toThrow(reading.ok ? 'never' : reading.problem);
        }
      }
    });
  });
}
