// An acknowledged append on PGlite on disk survives the process being killed outright (SIGKILL:
// no close(), no flush), and the dead process's lock on the folder is taken over.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventStore, openDatabase } from '../src/index.ts';

const INDEX = fileURLToPath(new URL('../src/index.ts', import.meta.url));

// The child appends, reports what the store acknowledged, and is killed before it could close anything.
const CHILD = `
import { createEventStore, migrate, openDatabase } from ${JSON.stringify(INDEX)};
const db = await openDatabase({ dataDir: process.argv[2] });
await migrate(db);
const store = createEventStore(db);
const rawBody = new TextEncoder().encode('{"msg_name":"MONEY_IN","note":"ñ"}');
const result = await store.append({ source: 'core', eventType: 'MONEY_IN', dedupeKey: 'core:survivor', idMsg: 'survivor', transactionId: null,
  operationId: null, rawBody, payload: { msg_name: 'MONEY_IN', note: 'ñ' }, headers: {}, receivedAt: new Date(), drift: [], outcome: 'accepted',
  reason: null, answerStatus: 201, refundReason: null });
process.stdout.write(JSON.stringify(result), () => process.kill(process.pid, 'SIGKILL'));
`;

describe('PGlite on disk after a crash', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'paykit-store-crash-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps an acknowledged append when the process is killed right after', async () => {
    const dataDir = path.join(dir, 'pglite');
    const script = path.join(dir, 'child.ts');
    writeFileSync(script, CHILD);
    const { stdout, signal } = await new Promise<{ stdout: string; signal: NodeJS.Signals | null }>((resolve) => {
      const child = execFile(process.execPath, [script, dataDir], { timeout: 60_000 }, (_error, out) =>
        resolve({ stdout: out, signal: child.signalCode }),
      );
    });
    expect(signal).toBe('SIGKILL');
    const acknowledged = JSON.parse(stdout) as { seq: string; inserted: boolean };
    expect(acknowledged.inserted).toBe(true);

    const db = await openDatabase({ dataDir });
    const store = createEventStore(db);
    try {
      const stored = await store.getByDedupeKey('core:survivor');
      expect(stored).toMatchObject({ seq: acknowledged.seq, payload: { msg_name: 'MONEY_IN', note: 'ñ' } });
      expect(new TextDecoder().decode(stored!.rawBody)).toBe('{"msg_name":"MONEY_IN","note":"ñ"}');
    } finally {
      await store.close();
      await db.close();
    }
  });
});
