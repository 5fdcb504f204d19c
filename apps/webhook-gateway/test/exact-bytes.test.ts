// Bodies at the edges of text: a byte order mark, and ids whose JSON escapes make a lone UTF-16
// surrogate. The exact bytes are stored, the delivery is answered 2xx, and a repeat gets the same
// answer; the deliveries committed in the same batch are not affected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLABES, bearer, databaseKinds, moneyInEnvelope, post, startTestGateway, type TestGateway } from './helpers.ts';

describe.each(databaseKinds)('exact bytes on $name', (kind) => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(kind);
    await t.gateway.accounts.upsert({ clabe: CLABES.acme, ownerId: null, status: 'ACTIVE', creditLimit: null });
  });
  afterAll(async () => {
    await t?.close();
  });

  const moneyIn = (body: string | Uint8Array) => post(`${t.url}/webhooks/core/money-in`, body, bearer());

  it('stores a body that starts with a byte order mark byte for byte', async () => {
    const delivery = moneyInEnvelope();
    const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(delivery))]);
    const answer = await moneyIn(raw);
    expect(answer.status).toBe(201);
    const stored = await t.gateway.events.get(answer.json.seq as string);
    expect(Buffer.from(stored!.rawBody).equals(raw)).toBe(true);
    expect(stored!.payload).toEqual(delivery);
  });

  it('answers a body of 800,000 backslashes at once, not after minutes of regular-expression backtracking', async () => {
    const delivery = moneyInEnvelope({ payment_concept: `${'\\'.repeat(400_000)}\u0000` });
    const raw = JSON.stringify(delivery);
    expect(raw.length).toBeGreaterThan(800_000);
    const answer = await moneyIn(raw);
    expect(answer.status).toBe(201);
    const stored = await t.gateway.events.get(answer.json.seq as string);
    expect(Buffer.from(stored!.rawBody).toString('utf8')).toBe(raw);
  });

  it('stores a credit whose id_msg holds a lone surrogate, answers its repeat alike, and fails none of the deliveries sent with it', async () => {
    const delivery = moneyInEnvelope();
    // "\ud800" is valid JSON; JSON.parse makes it a lone surrogate, which has no UTF-8 form.
    const raw = JSON.stringify(delivery).replace(/"id_msg":"/, '"id_msg":"\\ud800');
    const neighbours = Array.from({ length: 5 }, () => moneyInEnvelope());
    const answers = await Promise.all([moneyIn(raw), ...neighbours.map((n) => moneyIn(JSON.stringify(n)))]);
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201, 201]);
    const stored = await t.gateway.events.get(answers[0]!.json.seq as string);
    expect(stored!.idMsg).toBe(`\ufffd${delivery.id_msg as string}`);
    expect(Buffer.from(stored!.rawBody).toString('utf8')).toBe(raw);

    const repeat = await moneyIn(raw);
    expect(repeat).toEqual({ status: 201, json: { received: true, duplicate: true, seq: answers[0]!.json.seq } });
  });
});
