// Drift in the console: the notes the gateway stored with many deliveries are shown as one line per
// source, event type, field and kind with its count of events, and exported as CSV and JSON, the
// example described without the value that arrived.
import { randomUUID } from 'node:crypto';
import { createEventStore, type DriftNote, type NewEvent } from '@paykit/store';
import { testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleHealth } from '../src/health.ts';
import { startTestConsole, type TestConsole } from './test-console.ts';

const EXTRA: DriftNote = {
  path: 'body.new_field',
  kind: 'extra-field',
  expected: 'absent: not in the schema',
  seen: 'string (20 chars)',
};

function delivery(minute: number, drift: DriftNote[]): NewEvent {
  const idMsg = randomUUID();
  const id = randomUUID();
  const payload = {
    id_msg: idMsg,
    msg_name: 'MONEY_IN',
    msg_date: '2026-11-21',
    body: { id, amount: '10.00', new_field: 'value-never-shown-12' },
  };
  return {
    source: 'core',
    eventType: 'MONEY_IN',
    dedupeKey: `core:MONEY_IN:${idMsg}`,
    idMsg,
    transactionId: id,
    operationId: null,
    rawBody: new TextEncoder().encode(JSON.stringify(payload)),
    headers: {},
    receivedAt: new Date(Date.UTC(2026, 10, 21, 16, minute)),
    drift,
    outcome: 'accepted',
    reason: null,
    answerStatus: 201,
    refundReason: null,
  };
}

describe('drift in the console', () => {
  let opened: OpenedTestDatabase;
  let server: TestConsole;

  beforeAll(async () => {
    opened = await testDatabases([ledgerMigrations])[0]!.open();
    const store = createEventStore(opened.db);
    for (let i = 0; i < 14; i++) await store.append(delivery(i, [EXTRA]));
    await store.append(delivery(20, []));
    await store.close();
    server = await startTestConsole(opened.db, { health: createConsoleHealth(opened.db) });
  });

  afterAll(async () => {
    await server?.close();
    await opened?.drop();
  });

  const get = (path: string) => server.get(path);

  it('shows one record for one field seen in 14 deliveries, with its count', async () => {
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<strong data-drift-records>1</strong> record.');
    expect(page.text).toMatch(
      /<td>\/body\/new_field<\/td><td>extra-field<\/td><td class="n" data-drift-count>14<\/td>/,
    );
    expect(page.text).not.toContain('value-never-shown-12');
  });

  it('exports the records as CSV and JSON', async () => {
    const csv = await get('/drift.csv');
    expect(csv.type).toBe('text/csv; charset=utf-8');
    expect(csv.text.trim().split('\n')).toEqual([
      'source,eventType,pointer,kind,count,firstSeen,lastSeen,exampleSeq,expected,seen',
      expect.stringMatching(
        /^core,MONEY_IN,\/body\/new_field,extra-field,14,2026-11-21T16:00:00.000Z,2026-11-21T16:13:00.000Z,\d+,absent: not in the schema,string \(20 chars\)$/,
      ),
    ]);
    const json = JSON.parse((await get('/drift.json')).text) as Array<{
      pointer: string;
      count: number;
      example: { seen: string };
    }>;
    expect(json).toEqual([
      expect.objectContaining({
        pointer: '/body/new_field',
        count: 14,
        example: expect.objectContaining({ seen: 'string (20 chars)' }),
      }),
    ]);
  });
});
