// The scenario `pnpm start` runs through every product over real HTTP, as a product team would use
// the paykit clients: it registers the gateway as the sandbox client's core and cash webhooks (so
// the cash activation test runs for real), tells the gateway which accounts it decides credits
// against, then causes every kind of event and records what it expects the gateway to store and
// the worker to reconcile (checks.ts reads both afterwards).
import { randomBytes } from 'node:crypto';
import { createBillpayClient } from '@paykit/billpay-client';
import { createCashClient } from '@paykit/cash-client';
import {
  CASH_WEBHOOK_PATH,
  CORE_EVENT_PATHS,
  CORE_EVENT_TYPES,
  DIRECT_DEBIT_WEBHOOK_PATH,
  sandboxControl,
  type Seed,
} from '@paykit/contracts';
import { createCoreClient } from '@paykit/core-client';
import { createDirectDebitClient } from '@paykit/direct-debit-client';
import { createGiftCardsClient } from '@paykit/gift-cards-client';
import { createLotteryClient } from '@paykit/lottery-client';
import { createRemittanceClient } from '@paykit/remittance-client';
import { maskSecret } from '@paykit/runtime';
import { formatMoney } from '@paykit/domain';
import { createChargeRecorder, createTransactionRecorder, registerReceivable, type ReconItem } from '@paykit/ledger';
import { createAccountStore, type Database } from '@paykit/store';
import { initClient } from '@ts-rest/core';
import type { Expectations } from './checks.ts';
import type { Results } from './output.ts';

export interface ScenarioContext {
  /** The sandbox's base URL (its products under /<product>, its control API under /_sandbox). */
  sandboxUrl: string;
  gatewayUrl: string;
  /** What the sandbox holds: its clients, keys and tokens (GET /_sandbox/seed). */
  seed: Seed;
  /** The shared store (the ledger the clients record in). */
  db: Database;
  /** The bearer token of each core webhook type, as the gateway was started with. */
  webhookTokens: Record<string, string>;
  /** The Authorization value the gateway takes on its direct debit route. */
  directDebitAuthorization: string;
  /** Gives the gateway the cash webhook's secret_token (it restarts with it in GATEWAY_CASH_SECRET_TOKENS). */
  addCashSecret(secret: string): Promise<void>;
  results: Results;
  expected: Expectations;
}

export type Product = 'core' | 'cash' | 'remittance' | 'direct-debit' | 'billpay' | 'gift-cards' | 'lottery';

export async function runScenario(ctx: ScenarioContext): Promise<void> {
  const { sandboxUrl, gatewayUrl, db, seed, webhookTokens, directDebitAuthorization, results, expected } = ctx;
  const control = initClient(sandboxControl, { baseUrl: sandboxUrl });
  const client = seed.core.clients[0]!;
  const staging = client.credentials.find((c) => c.environment === 'staging')!;
  const env = (product: Product) => ({ environment: 'sandbox' as const, baseUrl: `${sandboxUrl}/${product}` });
  // Every transfer the client sends is written down in the ledger before it is sent, and recorded
  // with the platform's answer before the call returns.
  const core = createCoreClient({
    ...env('core'),
    clientId: client.clientId,
    apiKey: client.apiKeys.staging,
    clientSecret: staging.clientSecret,
    ...createTransactionRecorder(db, { actor: 'pnpm start' }),
  });
  const { apiKey: cashKey, apiSecret: cashSecret } = seed.cash[0]!;
  const cash = createCashClient({ ...env('cash'), apiKey: cashKey, apiSecret: cashSecret });
  const accounts = createAccountStore(db);
  const bodyOf = (payload: Record<string, unknown>) => (payload.body ?? {}) as Record<string, unknown>;
  const itemById = (id: string) => {
    expected.ownIds.add(id);
    return (items: ReconItem[]) => items.find((item) => item.id === id);
  };

  const INSTRUMENT = {
    acme: '66666666-6666-4666-8666-000000000001',
    bodega: '66666666-6666-4666-8666-000000000002',
    juan: '66666666-6666-4666-8666-000000000003',
    bbva: '66666666-6666-4666-8666-000000000004',
    banorte: '66666666-6666-4666-8666-000000000005',
  };
  const CLABE = { acme: '646180000000000012', bodega: '646180000000000025', juan: '646180000000000038' };

  console.log('\n▶ Point the sandbox client’s webhooks at the gateway');
  await results.check('core: five webhooks registered (tokens generated, kept by the gateway)', async () => {
    for (const type of CORE_EVENT_TYPES)
      await core.webhooks.register({
        webhookType: type,
        url: `${gatewayUrl}${CORE_EVENT_PATHS[type]}`,
        token: webhookTokens[type],
      });
    return CORE_EVENT_TYPES.join(', ');
  });
  await results.check('cash: webhook created and activated', async () => {
    // The secret_token exists only once the webhook is created, and its activation test is sent at
    // once: the first test fails (the gateway does not know the secret yet), the gateway restarts
    // with the secret in its environment, and updating the endpoint sends the test again.
    const created = await cash.webhooks.create(`${gatewayUrl}${CASH_WEBHOOK_PATH}`);
    await ctx.addCashSecret(String(created.secret_token).toLowerCase());
    await cash.webhooks.update(Number(created.id), `${gatewayUrl}${CASH_WEBHOOK_PATH}`);
    for (let i = 0; i < 50; i++) {
      const active = await cash.webhooks.getActive().catch(() => undefined);
      if (active) return `webhook ${created.id} active, secret ${maskSecret(String(created.secret_token))}`;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the activation test did not pass within 5 s (see the log)');
  });
  await results.check('gateway: the accounts it decides credits against', async () => {
    await accounts.upsert({ clabe: CLABE.acme, ownerId: null, status: 'ACTIVE', creditLimit: null });
    await accounts.upsert({ clabe: CLABE.bodega, ownerId: null, status: 'ACTIVE', creditLimit: null });
    await accounts.upsert({ clabe: CLABE.juan, ownerId: null, status: 'BLOCKED', creditLimit: null });
    return 'ACME and Bodega Norte ACTIVE, Juan Pérez BLOCKED';
  });

  console.log('\n▶ Run the scenario through every product');
  await results.check('core: credentials (x-api-key) and a bearer token', async () => {
    const { data } = await core.credentials.list();
    const token = await core.tokens.current();
    return `${data.length} credential(s); token ${maskSecret(token.token)}, expires ${token.expiresAt}`;
  });
  for (const [name, destination, holder] of [
    ['verified', INSTRUMENT.bbva, undefined],
    ['mismatched', INSTRUMENT.banorte, 'OTRA PERSONA DISTINTA'],
  ] as const) {
    await results.check(`core: penny validation, CEP completed (${name})`, async () => {
      const tx = await core.transactions.pennyValidation({
        source_instrument_id: INSTRUMENT.acme,
        destination_instrument_id: destination,
      });
      ok(
        await control.triggerCepOutcome({
          params: { transactionId: tx.id },
          body: { status: 'COMPLETED', ...(holder ? { beneficiaryName: holder } : {}) },
        }),
        'CEP',
      );
      expected.items.push({
        what: `penny validation ${name}`,
        find: itemById(tx.id),
        want: holder ? { state: 'mismatched', fields: ['holder_name'] } : { state: 'matched' },
      });
      expected.events.push({
        what: `CEP of the ${name} penny validation`,
        eventType: 'CEP',
        match: (p) => bodyOf(p).id === tx.id && bodyOf(p).status === 'COMPLETED',
      });
      return `${tx.amount} ${tx.currency} → CEP COMPLETED${holder ? ` (holder "${holder}")` : ''}`;
    });
  }
  const speiOut = async (destination: string, amount: string) =>
    String(
      (
        await core.transactions.moneyOut({
          source_instrument_id: INSTRUMENT.acme,
          destination_instrument_id: destination,
          transaction_request: { amount, currency: 'MXN', description: 'Proveedores' },
        })
      ).id,
    );
  await results.check('core: SPEI out settled', async () => {
    const id = await speiOut(INSTRUMENT.bbva, '1500.00');
    ok(await control.triggerSpeiSettle({ params: { transactionId: id }, body: {} }), 'settle');
    expected.events.push({
      what: 'STATUS_UPDATE LIQUIDATED',
      eventType: 'STATUS_UPDATE',
      match: (p) => bodyOf(p).id === id && bodyOf(p).status === 'LIQUIDATED',
    });
    expected.items.push({
      what: 'SPEI out settled',
      find: itemById(id),
      want: { state: 'matched', status: 'LIQUIDATED' },
    });
    return 'LIQUIDATED';
  });
  await results.check('core: SPEI out rejected', async () => {
    const id = await speiOut(INSTRUMENT.banorte, '820.00');
    ok(
      await control.triggerSpeiReject({
        params: { transactionId: id },
        body: {
          status: 'REJECTED',
          reason: 'ACCOUNT_NOT_FOUND',
          reasonDescription: 'The beneficiary account does not exist.',
        },
      }),
      'reject',
    );
    expected.events.push({
      what: 'STATUS_UPDATE REJECTED',
      eventType: 'STATUS_UPDATE',
      match: (p) => bodyOf(p).id === id && bodyOf(p).status === 'REJECTED',
    });
    expected.items.push({
      what: 'SPEI out rejected',
      find: itemById(id),
      want: { state: 'matched', status: 'REJECTED' },
    });
    return 'REJECTED (ACCOUNT_NOT_FOUND)';
  });
  await results.check('core: SPEI out settled, then reversed by the network', async () => {
    const id = await speiOut(INSTRUMENT.bbva, '310.00');
    ok(await control.triggerSpeiSettle({ params: { transactionId: id }, body: {} }), 'settle');
    const reversal = ok<{ refundTransactionId: string }>(
      await control.triggerSpeiReverse({ params: { transactionId: id }, body: {} }),
      'reverse',
    );
    expected.items.push({
      what: 'SPEI out reversed',
      find: itemById(id),
      want: { state: 'refunded', status: 'REFUNDED' },
    });
    expected.items.push({
      what: 'the network’s reversal',
      find: itemById(reversal.refundTransactionId),
      want: { state: 'matched' },
    });
    expected.events.push({
      what: 'REFUND of the reversed transfer',
      eventType: 'REFUND',
      match: (p) => bodyOf(p).original_transaction_id === id,
    });
    expected.events.push({
      what: 'STATUS_UPDATE REFUNDED',
      eventType: 'STATUS_UPDATE',
      match: (p) => bodyOf(p).id === id && bodyOf(p).status === 'REFUNDED',
    });
    return 'LIQUIDATED → REFUNDED';
  });
  await results.check('core: money_out to a platform account (internal transfer)', async () => {
    const tx = await core.transactions.moneyOut({
      source_instrument_id: INSTRUMENT.acme,
      destination_instrument_id: INSTRUMENT.bodega,
      transaction_request: { amount: '250.00', currency: 'MXN' },
    });
    expected.events.push({
      what: 'INT_CREDIT of the internal transfer, accepted',
      eventType: 'MONEY_IN',
      outcome: 'accepted',
      match: (p) => bodyOf(p).sub_category === 'INT_CREDIT' && bodyOf(p).tracking_key === tx.trackingId,
    });
    expected.items.push({
      what: 'internal transfer out',
      find: itemById(String(tx.id)),
      want: { state: 'matched', status: 'LIQUIDATED' },
    });
    expected.items.push({
      what: 'its INT_CREDIT',
      find: (items) => items.find((item) => item.product === 'internal_in' && item.trackingKey === tx.trackingId),
      want: { state: 'matched' },
    });
    return `${tx.subCategory}`;
  });
  // A new invoice and payment reference on every run: the store outlives a run without --once.
  const invoice = `INV-${new Date().toISOString().slice(0, 10)}-${randomBytes(3).toString('hex')}`;
  const paymentReference = String(1_000_000 + (randomBytes(3).readUIntBE(0, 3) % 9_000_000));
  await results.check('ledger: a receivable the expected credit will match', async () => {
    await registerReceivable(db, {
      id: invoice,
      beneficiaryAccount: CLABE.acme,
      amount: '12000.00',
      reference: paymentReference,
      dueDate: '2026-12-31',
    });
    return `${invoice}: ${formatMoney('12000.00', 'MXN')} to ACME, reference ${paymentReference}`;
  });
  for (const [name, clabe, amount, outcome, state] of [
    ['expected credit to ACME', CLABE.acme, '12000.00', 'accepted', 'matched'],
    ['unexpected credit to Bodega Norte', CLABE.bodega, '75.50', 'accepted', 'orphan'],
    ['credit to a blocked account, refused', CLABE.juan, '430.00', 'rejected', 'refunded'],
  ] as const) {
    await results.check(`core: incoming SPEI, ${name}`, async () => {
      const body = {
        beneficiaryClabe: clabe,
        amount,
        ...(state === 'matched' ? { numericReference: paymentReference } : {}),
      };
      const credit = ok<{ transactionId: string }>(
        await control.triggerIncomingSpei({ body: body as never }),
        'incoming SPEI',
      );
      expected.events.push({
        what: `MONEY_IN ${name}`,
        eventType: 'MONEY_IN',
        outcome,
        match: (p) => bodyOf(p).id === credit.transactionId,
      });
      expected.items.push({ what: name, find: itemById(credit.transactionId), want: { state } });
      if (outcome === 'rejected') {
        expected.events.push({
          what: 'REFUND of the refused credit',
          eventType: 'REFUND',
          match: (p) => bodyOf(p).original_transaction_id === credit.transactionId,
        });
        expected.items.push({
          what: 'the refund of the refused credit',
          find: (items) => items.find((item) => item.product === 'credit_refund' && item.amount === amount),
          want: { state: 'matched' },
        });
      }
      return `${formatMoney(amount, 'MXN')} → ${outcome}`;
    });
  }
  await results.check('cash: operations paid, expired, and paid then reversed (signed deliveries)', async () => {
    const done: string[] = [];
    for (const statuses of [['paid'], ['expired'], ['paid', 'reversed']] as const) {
      const operation = ok<{ operation_id: number }>(
        await control.createCashOperation({
          body: { type: 'cash_in', amount: 500, externalUserId: 'cliente-42', closedReference: true },
        }),
        'cash operation',
      );
      for (const status of statuses) {
        ok(
          await control.setCashOperationStatus({ params: { operationId: operation.operation_id }, body: { status } }),
          `cash ${status}`,
        );
        expected.events.push({
          what: `cash ${status} of operation ${operation.operation_id}`,
          eventType: `webhook.${status}.success`,
          match: (p) => p.operation_id === operation.operation_id,
        });
      }
      done.push(statuses.join('→'));
    }
    return done.join(', ');
  });
  await results.check('remittance: receive into a private account', async () => {
    const answer = await createRemittanceClient(env('remittance')).receive({
      partner_transaction_session_id: `start-${Date.now()}`,
      reference: 'REM-1',
      amount: '3200.00',
      currency: 'MXN',
    });
    return `${answer.status}, ready_for_commit ${answer.ready_for_commit}`;
  });
  await results.check('direct debit: a customer, and the instruments over the cursor', async () => {
    const dd = createDirectDebitClient({ ...env('direct-debit'), apiKey: seed.directDebit!.apiKeys[0]! });
    const customer = await dd.customers.create({
      name: 'Ana López',
      document_type: 'mx_rfc',
      document_number: 'LOAA800101ABC',
    } as Parameters<typeof dd.customers.create>[0]);
    let count = 0;
    for await (const _instrument of dd.instruments.list({ limit: 1 })) count++;
    return `customer ${String((customer as { id?: unknown }).id)}; ${count} instrument(s) over the cursor`;
  });
  await results.check(
    'direct debit: instruments and charges in the documented forms, charge_result delivered',
    async () => {
      const ddSeed = seed.directDebit!;
      const webhook = {
        url: `${gatewayUrl}${DIRECT_DEBIT_WEBHOOK_PATH}`,
        authorization: directDebitAuthorization,
        form: 'current' as const,
      };
      ok(
        await control.addSeed({
          body: { directDebit: { orgId: ddSeed.orgId, apiKeys: [], customers: [], instruments: [], webhook } },
        }),
        'direct debit webhook',
      );
      // Every created charge is recorded in the ledger, where its charge_result is reconciled against it.
      const dd = createDirectDebitClient({
        ...env('direct-debit'),
        apiKey: ddSeed.apiKeys[0]!,
        onChargeCreated: createChargeRecorder(db),
      });
      const customerId = ddSeed.customers[0]!.id;
      const instrument = await dd.instruments.create({
        type: 'mx_clabe',
        customer_id: customerId,
        mx_clabe: { identifier: '012180015118333755' },
      });
      const stored = await dd.charges.create({
        currency: 'mxn',
        amount: 100,
        reference: 'start-dd-stored',
        customer_id: customerId,
        instrument_id: instrument.id,
      });
      const inline = await dd.charges.create({
        currency: 'mxn',
        amount: 250.5,
        reference: 'start-dd-inline',
        inline_instrument: { type: 'mx_clabe', identifier: '012180015118333755' },
        inline_customer: { name: 'John Doe', document_type: 'mx_rfc', document_number: 'AABB220089' },
      });
      for (const [charge, result] of [
        [stored, 'confirmed'],
        [inline, 'declined'],
      ] as const) {
        ok(
          await control.triggerChargeResult({ params: { chargeId: charge.id }, body: { result } }),
          `charge ${result}`,
        );
        expected.events.push({
          what: `charge_result ${result} of charge ${charge.id}`,
          eventType: 'charge_result',
          match: (p) => (p.data as { charge_id?: unknown } | undefined)?.charge_id === charge.id,
        });
      }
      expected.items.push({
        what: 'direct debit charge confirmed',
        find: itemById(stored.id),
        want: { product: 'direct_debit_charge', state: 'matched', status: 'confirmed', amount: '100.00' },
      });
      expected.items.push({
        what: 'direct debit charge declined',
        find: itemById(inline.id),
        want: { product: 'direct_debit_charge', state: 'matched', status: 'declined', amount: '250.50' },
      });
      return `instrument ${instrument.id}; charges ${stored.id} confirmed, ${inline.id} declined`;
    },
  );
  await results.check('core: a daily report', async () => {
    const report = ok<{ fileName: string }>(
      await control.triggerReport({ body: { clientId: client.clientId, fileType: 'TRANSACTIONS', period: 'DAILY' } }),
      'report',
    );
    expected.events.push({
      what: `REPORT ${report.fileName}`,
      eventType: 'REPORT',
      match: (p) => p.file_name === report.fileName,
    });
    expected.reportFile = report.fileName;
    return report.fileName;
  });
  await results.check('billpay, gift cards, lottery: account (bearer)', async () => {
    await Promise.all([
      createBillpayClient({ ...env('billpay'), token: seed.bearer.billpay[0]! }).account.get(),
      createGiftCardsClient({ ...env('gift-cards'), token: seed.bearer['gift-cards'][0]! }).account.get(),
      createLotteryClient({ ...env('lottery'), token: seed.bearer.lottery[0]!.token }).account.get(),
    ]);
    return 'all three accounts read';
  });
}

export function ok<T>(answer: { status: number; body: unknown }, what: string): T {
  if (answer.status !== 200)
    throw new Error(`${what}: the sandbox answered ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
  return answer.body as T;
}
