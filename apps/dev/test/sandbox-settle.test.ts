// The sandbox as `pnpm start` runs it (`--spei-settle-after off`): an outbound SPEI transfer stays
// in progress however long the clock runs, until the scenario settles it through the control API;
// with a number of seconds, it settles on its own once they pass (the control API then finds it settled).
import { createCoreClient } from '@paykit/core-client';
import { startSandboxProcess, type SandboxProcess } from '@paykit/testing/sandbox';
import { seededClients } from '@paykit/testing/seeded-clients';
import { afterEach, describe, expect, it } from 'vitest';

const ACME = '66666666-6666-4666-8666-000000000001';
const BBVA = '66666666-6666-4666-8666-000000000004';
let sandbox: SandboxProcess | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** A money_out to an external account, the clock moved `seconds` on, then a settle through the control API: its status code. */
async function settleAfter(option: string, seconds: number): Promise<number> {
  sandbox = await startSandboxProcess({ args: ['--spei-settle-after', option] });
  const core = createCoreClient((await seededClients(sandbox)).core);
  const tx = await core.transactions.moneyOut({
    source_instrument_id: ACME,
    destination_instrument_id: BBVA,
    transaction_request: { amount: '10.00', currency: 'MXN' },
  });
  expect(tx.transactionStatus).toBe('IN_PROGRESS');
  expect((await sandbox.control.advanceClock({ body: { seconds } })).status).toBe(200);
  return (await sandbox.control.triggerSpeiSettle({ params: { transactionId: String(tx.id) }, body: {} })).status;
}

describe('sandbox --spei-settle-after', () => {
  it('off: a transfer is still in progress an hour later, for the control API to settle', async () => {
    expect(await settleAfter('off', 3600)).toBe(200);
  });
  it('5: the transfer settled on its own after 5 s', async () => {
    expect(await settleAfter('5', 6)).toBe(409);
  });
});
