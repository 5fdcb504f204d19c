// The console's page of one stored event shows its payload as the platform sent it, but with card
// data and secrets redacted the way the clients redact them: a card number reads as its last 4
// digits, a card security code is gone, a token is "[redacted]". The page must never print a PAN.
import { createEventStore, type NewEvent } from '@paykit/store';
import { testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestConsole, type TestConsole } from './test-console.ts';

const PAN = '4111111111111111';

function cardEvent(): NewEvent {
  const payload = {
    id_msg: 'msg-card-1',
    msg_name: 'CHARGE_RESULT',
    body: {
      charge_id: 'ch-1',
      instrument: {
        type: 'mx_direct_debit_card',
        mx_direct_debit_card: { card_number: PAN, cvv: '123', bank: 'mx_bbva' },
      },
      note: `card ${PAN} declined`,
      client_secret: 'cs_live_abcdefghijklmnop',
    },
  };
  return {
    source: 'direct_debit',
    eventType: 'CHARGE_RESULT',
    dedupeKey: 'direct_debit:CHARGE_RESULT:msg-card-1',
    idMsg: 'msg-card-1',
    transactionId: null,
    operationId: null,
    rawBody: new TextEncoder().encode(JSON.stringify(payload)),
    headers: {},
    receivedAt: new Date('2026-11-20T16:30:00Z'),
    drift: [],
    outcome: 'accepted',
    reason: null,
    answerStatus: 201,
    refundReason: null,
  };
}

for (const kind of testDatabases()) {
  describe(`the console's event page on ${kind.name}`, () => {
    let opened: OpenedTestDatabase;
    let server: TestConsole;
    let seq: string;

    beforeAll(async () => {
      opened = await kind.open();
      const store = createEventStore(opened.db);
      ({ seq } = await store.append(cardEvent()));
      await store.close();
      server = await startTestConsole(opened.db);
    });

    afterAll(async () => {
      await server?.close();
      await opened?.drop();
    });

    it('masks a card number to its last 4 digits, drops the CVV and redacts a secret in the payload', async () => {
      const response = await fetch(new URL(`/events/${seq}`, server.url));
      const html = await response.text();
      expect(response.status).toBe(200);
      expect(html).toContain('CHARGE_RESULT');
      expect(html).toContain('1111');
      expect(html).not.toContain(PAN);
      expect(html).not.toContain('411111');
      expect(html).not.toContain('cvv');
      expect(html).not.toContain('cs_live_abcdefghijklmnop');
    });
  });
}
