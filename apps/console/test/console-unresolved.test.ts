// Unresolved transfers in the console: a transfer written down whose answer never reached the
// ledger is listed with its amount, age on the console's clock, sender and the command that
// resolves it, with the count and the sum; once its answer is attached it is gone.
import { randomUUID } from 'node:crypto';
import { createTransactionRecorder } from '@paykit/ledger';
import { testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestConsole, type TestConsole } from './test-console.ts';

const CLIENT = '11111111-1111-4111-8111-111111111111';

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`unresolved transfers in the console (${kind.name})`, () => {
    let opened: OpenedTestDatabase;
    let server: TestConsole;
    const record = () =>
      createTransactionRecorder(opened.db, { actor: 'ana@finance', now: () => new Date('2026-11-21T15:00:00Z') });
    const intent = (amount: string) => ({
      operation: 'createMoneyOut' as const,
      clientId: CLIENT,
      idempotencyKey: randomUUID(),
      body: {
        client_id: CLIENT,
        source_instrument_id: randomUUID(),
        destination_instrument_id: randomUUID(),
        transaction_request: { amount, currency: 'MXN', description: 'payout', external_reference: '7000001' },
      },
    });

    beforeAll(async () => {
      opened = await kind.open();
      server = await startTestConsole(opened.db);
    });
    afterAll(async () => {
      await server?.close();
      await opened?.drop();
    });

    it('lists each with its amount, age and sender, and drops it once attached', async () => {
      const recorder = record();
      const waiting = await recorder.onTransactionIntent(intent('4321.00'));
      const answered = intent('10.00');
      const answeredId = await recorder.onTransactionIntent(answered);
      const id = randomUUID();
      await recorder.onTransactionCreated({
        operation: 'createMoneyOut',
        idempotencyKey: answered.idempotencyKey,
        intentId: answeredId,
        transaction: {
          id,
          amount: '10.00',
          transactionStatus: 'INITIALIZED',
          audit: { createdAt: '2026-11-21T15:00:01Z' },
        },
      });
      const { status, text } = await server.get('/unresolved');
      expect(status).toBe(200);
      expect(text).toContain('<strong data-unresolved-count>1</strong>');
      expect(text).toContain('<strong data-unresolved-amount>MXN 4,321.00</strong>');
      expect(text).toContain('<td class="n">MXN 4,321.00</td>');
      expect(text).toContain('<td>3 h</td>');
      expect(text).toContain('ana@finance');
      expect(text).toContain(`paykit transfers resolve ${waiting}`);
      expect(text).not.toContain(answeredId);
    });
  });
}
