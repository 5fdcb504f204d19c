// Every payload the platform documents (packages/contracts/fixtures/documented/events), delivered
// over HTTP as the platform sends it: each gets 2xx and is stored with its drift noted; a format
// that differs from the spec (a compact transaction_date, a numeric body.id, a CLABE that fails
// its control digit, an id_msg without a UUID version) never holds, refuses or refunds a credit.
// A documented credit to an account the store does not know is stored and held (202), never
// refused — unless the operator says so (GATEWAY_UNKNOWN_ACCOUNT=reject), and even then never
// because of how the account is written.
import { randomUUID } from 'node:crypto';
import { reconcileOnce } from '@paykit/ledger';
import { describe, expect, it } from 'vitest';
import { CLABES, bearer, databaseKinds, gatewayForSuite, post, type TestGateway } from './helpers.ts';
import { documentedEvents, type DocumentedEvent } from './documented-fixtures.ts';

const fixtures = documentedEvents();
const credits = fixtures.filter((f) => f.type === 'MONEY_IN');
const bodyOf = (fixture: DocumentedEvent): Record<string, unknown> =>
  (fixture.payload.body ?? {}) as Record<string, unknown>;
/** The answer an accepted documented event gets: 200 for an internal credit and every other type, 201 for an external credit (with or without sub_category). */
const acceptedStatus = (fixture: DocumentedEvent): number =>
  fixture.type === 'MONEY_IN' && bodyOf(fixture).sub_category !== 'INT_CREDIT' ? 201 : 200;

describe.each(databaseKinds)('documented payloads on $name', (kind) => {
  const deliver = (target: TestGateway, fixture: DocumentedEvent, payload: Record<string, unknown> = fixture.payload) =>
    post(
      `${target.url}${fixture.route}`,
      JSON.stringify(payload),
      fixture.type === 'REPORT' ? { 'content-type': 'application/json' } : bearer(),
    );

  it('has a payload of every core event type and of both credit kinds, each with its own identity', () => {
    expect(new Set(fixtures.map((f) => f.type))).toEqual(
      new Set(['MONEY_IN', 'STATUS_UPDATE', 'CEP', 'REFUND', 'REPORT']),
    );
    expect(new Set(credits.map((f) => bodyOf(f).sub_category))).toEqual(
      new Set([undefined, 'SPEI_CREDIT', 'INT_CREDIT']),
    );
    const identities = fixtures.map((f) =>
      String(f.payload.id_msg ?? `${String(f.payload.client_id)}:${String(f.payload.file_name)}`),
    );
    expect(new Set(identities).size).toBe(fixtures.length);
  });

  describe('to the accounts the store knows', () => {
    // The company's own accounts are known to the store, whatever their control digit.
    const gateway = gatewayForSuite(kind, {}, async (t) => {
      for (const fixture of credits)
        await t.gateway.accounts.upsert({
          clabe: bodyOf(fixture).beneficiary_account as string,
          ownerId: null,
          status: 'ACTIVE',
          creditLimit: null,
        });
    });

    it.each(fixtures)('acknowledges $file with 2xx, stored with its drift, never held or refused', async (fixture) => {
      const t = gateway();
      const answer = await deliver(t, fixture);
      expect(answer.status, `${fixture.file} (${fixture.source.url}): ${JSON.stringify(answer.json)}`).toBe(
        acceptedStatus(fixture),
      );
      expect(answer.json).toMatchObject({ received: true, duplicate: false });
      const stored = await t.gateway.events.get(String(answer.json.seq));
      expect(stored).toMatchObject({
        eventType: fixture.type,
        outcome: fixture.type === 'MONEY_IN' ? 'accepted' : 'stored',
        answerStatus: acceptedStatus(fixture),
        reason: null,
        refundReason: null,
      });
      expect(stored!.payload).toEqual(fixture.payload);
      // A control digit that fails is drift, noted with the event.
      if (fixture.type === 'MONEY_IN' && fixture.notes.some((note) => /fails the CLABE control digit/.test(note))) {
        expect(stored!.drift).toContainEqual(
          expect.objectContaining({ path: 'body.beneficiary_account', kind: 'mismatch' }),
        );
      }
      // The spec reads every documented form (specs/core.yaml cites the pages); what is left is what
      // the reference requires and a page omits (sub_category, owner_id), and the control digit.
      const expected = (note: { path: string; kind: string }) =>
        (note.kind === 'missing-field' && ['body.sub_category', 'body.owner_id'].includes(note.path)) ||
        note.path === 'body.beneficiary_account';
      expect(stored!.drift.filter((note) => !expected(note))).toEqual([]);
      // The platform may deliver it again: the same answer, stored once.
      const again = await deliver(t, fixture);
      expect(again).toMatchObject({
        status: answer.status,
        json: { received: true, duplicate: true, seq: answer.json.seq },
      });
    });

    // What the gateway stored, the reconciliation worker applies: every documented form, none parked.
    it('leaves every one of them to the worker to apply, nothing parked on format', async () => {
      const t = gateway();
      for (const fixture of fixtures) await deliver(t, fixture);
      await reconcileOnce(t.db);
      const parked = await t.db.query<{ event_type: string; reason: string }>(
        'SELECT e.event_type, p.reason FROM ledger_parked_events p JOIN webhook_events e USING (seq) ORDER BY p.seq',
      );
      expect(parked.rows).toEqual([]);
      const { rows } = await t.db.query<{ stored: string; applied: string; parked: string }>(
        `SELECT (SELECT count(*) FROM webhook_events)::text AS stored, (SELECT count(*) FROM webhook_events_applied)::text AS applied,
                (SELECT count(*) FROM ledger_parked_events)::text AS parked`,
      );
      expect(rows[0]).toEqual({ stored: String(fixtures.length), applied: String(fixtures.length), parked: '0' });
    });
  });

  describe('to an account the store does not know (default GATEWAY_UNKNOWN_ACCOUNT=hold)', () => {
    const gateway = gatewayForSuite(kind);

    it.each(credits)('stores and holds $file (202), never refusing it', async (fixture) => {
      const t = gateway();
      const answer = await deliver(t, fixture);
      expect(answer.status).toBe(202);
      const stored = await t.gateway.events.get(String(answer.json.seq));
      expect(stored).toMatchObject({ outcome: 'stored', answerStatus: 202, refundReason: null });
      expect(stored!.reason).toMatch(
        /^held for review: beneficiary account .* is not among the accounts the store knows: held for a person to decide \(GATEWAY_UNKNOWN_ACCOUNT=hold/,
      );
    });

    it('counts them as held by the unknown-account rule', async () => {
      const t = gateway();
      const metrics = await (await fetch(`${t.url}/metrics`)).text();
      expect(metrics).toMatch(
        new RegExp(`gateway_money_in_decisions_total\\{decision="stored",rule="unknown-account"\\} ${credits.length}`),
      );
      expect(metrics).not.toMatch(/decision="rejected"/);
    });
  });

  describe('when the operator refuses credits to unknown accounts (GATEWAY_UNKNOWN_ACCOUNT=reject)', () => {
    const gateway = gatewayForSuite(kind, { GATEWAY_UNKNOWN_ACCOUNT: 'reject' });
    const spei = credits.find((f) => bodyOf(f).sub_category === 'SPEI_CREDIT')!;
    const guide = credits.find((f) => bodyOf(f).sub_category === undefined)!;
    const internal = credits.find((f) => bodyOf(f).sub_category === 'INT_CREDIT')!;
    /** The documented credit to another account: another delivery (its own id_msg). */
    const toAccount = (fixture: DocumentedEvent, account: string) => ({
      ...fixture.payload,
      id_msg: randomUUID(),
      body: { ...bodyOf(fixture), beneficiary_account: account },
    });

    it('refuses an external credit to an unknown valid CLABE with 422 and refundReason', async () => {
      const t = gateway();
      const answer = await deliver(t, spei, toAccount(spei, CLABES.acme));
      expect(answer).toMatchObject({ status: 422, json: { refundReason: 'Beneficiary account unknown' } });
    });

    it('holds, never refunds, a credit to an unknown account that fails the CLABE control digit', async () => {
      const t = gateway();
      const answer = await deliver(t, spei);
      expect(answer.status).toBe(202);
      expect((await t.gateway.events.get(String(answer.json.seq)))!.reason).toMatch(
        /is not a valid CLABE: held rather than refused/,
      );
    });

    it('holds a refused credit without sub_category (a 422 might refund nothing) and flags an internal one', async () => {
      const t = gateway();
      const unsure = await deliver(t, guide, toAccount(guide, CLABES.acme));
      expect(unsure.status).toBe(202);
      expect((await t.gateway.events.get(String(unsure.json.seq)))!.reason).toMatch(
        /without sub_category a 422 might refund it/,
      );
      const flagged = await deliver(t, internal, toAccount(internal, CLABES.bodega));
      expect(flagged.status).toBe(200);
      expect(await t.gateway.events.get(String(flagged.json.seq))).toMatchObject({
        outcome: 'flagged',
        refundReason: null,
      });
    });
  });
});
