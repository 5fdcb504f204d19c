// One amount rule, three enforcements that agree. Every input of the one table
// (packages/contracts/fixtures/amounts) is sent as a MONEY_IN's body.amount, byte for byte, to a
// running gateway over HTTP; its verdict (201 accepted, or 202 held with a reason naming the
// amount) must be the verdict of @paykit/contracts' readAmount and of the SQL function
// paykit_amount on the gateway's own database, and the ledger, applying what the gateway stored,
// books the credits the gateway accepted and parks the others naming body.amount. On PGlite, and
// on PostgreSQL when DATABASE_URL is set.
import { readAmount } from '@paykit/contracts';
import { listItems, listParked, reconcileOnce } from '@paykit/ledger';
import { AMOUNT_CASES as CASES, type AmountCase } from '@paykit/testing/amount-cases';
import { describe, expect, it } from 'vitest';
import { CLABES, bearer, databaseKinds, gatewayForSuite, moneyInEnvelope, post } from './helpers.ts';

/** A MONEY_IN whose body.amount is exactly the JSON text given (absent when null). */
function delivery(json: string | null): { id: string; raw: string } {
  const envelope = moneyInEnvelope({ amount: '__AMOUNT__' });
  const id = (envelope.body as { id: string }).id;
  const text = JSON.stringify(envelope);
  const raw = json === null ? text.replace(/,?"amount":"__AMOUNT__"/, '') : text.replace('"__AMOUNT__"', () => json);
  return { id, raw };
}

describe.each(databaseKinds)('one amount rule: TypeScript, the gateway over HTTP and SQL on $name', (kind) => {
  const gateway = gatewayForSuite(kind, {}, async (t) => {
    await t.gateway.accounts.upsert({ clabe: CLABES.acme, ownerId: null, status: 'ACTIVE', creditLimit: null });
  });

  it('give the same verdict for every input of the table, and the ledger follows it', async () => {
    const t = gateway();
    const verdicts: Array<{
      name: string;
      expected: boolean;
      ts: boolean;
      gateway: boolean;
      sql: boolean;
      ledger: boolean;
    }> = [];
    const sent: Array<{ c: AmountCase; id: string; seq: string }> = [];
    for (const c of CASES) {
      const { id, raw } = delivery(c.json);
      const answer = await post(`${t.url}/webhooks/core/money-in`, raw, bearer());
      expect([201, 202], `${c.name}: ${JSON.stringify(answer)}`).toContain(answer.status);
      const seq = answer.json.seq as string;
      const stored = await t.gateway.events.get(seq);
      if (answer.status === 202) expect(stored?.reason, c.name).toMatch(/^held for review: amount /);
      sent.push({ c, id, seq });
      const { rows } = await t.db.query<{ valid: boolean }>('SELECT paykit_amount($1::jsonb) IS NOT NULL AS valid', [
        c.json,
      ]);
      verdicts.push({
        name: c.name,
        expected: c.valid,
        ts: readAmount(c.json === null ? undefined : JSON.parse(c.json)).ok,
        gateway: answer.status === 201,
        sql: rows[0]!.valid,
        ledger: false,
      });
    }

    await reconcileOnce(t.db);
    const parked = new Map((await listParked(t.db)).map((p) => [p.seq, p.reason]));
    const credits = new Set(
      (await listItems(t.db, { limit: 10_000 })).filter((i) => i.kind === 'credit').map((i) => i.id),
    );
    sent.forEach(({ id, seq }, i) => {
      const reason = parked.get(seq);
      if (reason !== undefined) expect(reason, verdicts[i]!.name).toMatch(/^MONEY_IN: body\.amount /);
      verdicts[i]!.ledger = reason === undefined && credits.has(id);
    });

    const agreeing = verdicts.map((v) => ({
      ...v,
      ts: v.expected,
      gateway: v.expected,
      sql: v.expected,
      ledger: v.expected,
    }));
    expect(verdicts).toEqual(agreeing);
  });
});
