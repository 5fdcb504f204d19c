// The console's page of one stored event shows its payload as the platform sent it, but with card
// data and secrets redacted the way the clients redact them: a card number reads as its last 4
// digits (in any field, as a string grouped or not, or as a JSON number), a card security code is
// gone (cvv, cvv_code, card_cvn, cv2, `code` inside `card`…), a token, a secretKey, a credential
// or a PIN is "[redacted]", a CLABE and an amount are shown. The page must never print a PAN. An
// event of a month archived past the retention is not lost: the page names the file that holds it.
import { createEventStore, type NewEvent } from '@paykit/store';
import { testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
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
      // Each of these was once shown in full: a PAN as a JSON number or dot-grouped in fields not
      // named like card fields, security codes and secrets under names the redaction did not know.
      reference_number: 5555555555554444,
      printed: '3782.822463.10005',
      card: { code: '9173', holder: 'ANA' },
      cvv_code: '9174',
      cvvNumber: 9175,
      card_cvn: '9176',
      cv2: '9177',
      card_verification: '9178',
      secretKey: 'sk_live_0123456789abcdef',
      credential: 'cred_0123456789abcdef',
      pin: '9179',
      // Shown as they are: a CLABE and an amount.
      beneficiary_account: '002180000000000164',
      amount: '1500.00',
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

for (const kind of testDatabases([ledgerMigrations])) {
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
      const payload = html.slice(html.indexOf('<h2>Payload</h2>'));
      for (const shown of ['************4444', '***********0005', '002180000000000164', '1500.00', 'ANA'])
        expect(payload).toContain(shown);
      for (const hidden of [
        '5555555555554444',
        '3782.822463',
        ...['9173', '9174', '9175', '9176', '9177', '9178', '9179'],
        'card_cvn',
        'cv2',
        'card_verification',
        'sk_live_0123456789abcdef',
        'cred_0123456789abcdef',
      ])
        expect(payload).not.toContain(hidden);
      expect(payload).toContain('&quot;secretKey&quot;: &quot;[redacted]&quot;');
    });

    it('names the archive that holds an event of an archived month, and says there is no event otherwise', async () => {
      // The registry row an archive writes (packages/ledger/src/archive/archive.ts) for a month of seqs 900–999.
      await opened.db.query(
        `INSERT INTO webhook_event_archives (partition_name, range_from, range_to, file, sha256, events, first_seq, last_seq, archived_at)
         VALUES ('webhook_events_2026_08', '2026-08-01Z', '2026-09-01Z', '/var/paykit/archive/webhook_events_2026_08.ndjson.gz',
                 $1, 100, 900, 999, '2026-11-01T06:00:00Z')`,
        ['a'.repeat(64)],
      );
      const archived = await fetch(new URL('/events/950', server.url));
      const html = await archived.text();
      expect(archived.status).toBe(404);
      expect(html).toContain('Stored event #950: archived');
      expect(html).toContain('webhook_events_2026_08');
      expect(html).toContain('pnpm paykit store restore /var/paykit/archive/webhook_events_2026_08.ndjson.gz');

      const missing = await fetch(new URL('/events/1000', server.url));
      expect(missing.status).toBe(404);
      expect(await missing.text()).toContain('No stored event #1000.');
    });
  });
}
