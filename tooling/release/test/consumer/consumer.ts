// A product team's code, type-checked in a fresh project outside the workspace against the
// packed packages' own .d.ts files (pack-consume.test.ts): every published entry point, and
// mistakes the types must refuse.
import { createBillpayClient } from '@paykit/billpay-client';
import { createCashClient } from '@paykit/cash-client';
import { migrateMoneyOut, INTERNAL_TRANSACTION_DEPRECATION, type Report } from '@paykit/codemods';
import { parseReportCsv, sandboxControl, type ReportLine } from '@paykit/contracts';
import { API_VERSION, createCoreClient, PaykitError, type CoreClient, type MoneyOutInput } from '@paykit/core-client';
import type { paths } from '@paykit/core-client/paths';
import { zMoneyOutTransaction } from '@paykit/core-client/zod';
import { createDirectDebitClient } from '@paykit/direct-debit-client';
import { isValidClabe, toCentavos } from '@paykit/domain';
import { createGiftCardsClient } from '@paykit/gift-cards-client';
import { reconcileOnce, type ReconcileResult } from '@paykit/ledger';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { createLotteryClient } from '@paykit/lottery-client';
import { createRemittanceClient } from '@paykit/remittance-client';
import { jsonLineLogger } from '@paykit/runtime';
import { RateLimitedError } from '@paykit/runtime/errors';
import { migrate as migrateDatabase, openDatabase, type Database, type MigrateResult } from '@paykit/store';
import { testDatabases } from '@paykit/store/testing';

export const revision: '2026-05-07' = API_VERSION;

export async function payOut(core: CoreClient, body: MoneyOutInput): Promise<string | undefined> {
  const transaction = await core.transactions.moneyOut(body);
  return zMoneyOutTransaction.parse(transaction).subCategory;
}

export function clients(apiKey: string, apiSecret: string, token: string) {
  return {
    core: createCoreClient({ environment: 'sandbox', clientId: 'client', apiKey }),
    directDebit: createDirectDebitClient({ environment: 'sandbox', apiKey }),
    cash: createCashClient({ environment: 'sandbox', apiKey, apiSecret }),
    remittance: createRemittanceClient({ environment: 'sandbox' }),
    billpay: createBillpayClient({ environment: 'sandbox', token }),
    giftCards: createGiftCardsClient({ environment: 'sandbox', token }),
    lottery: createLotteryClient({ environment: 'sandbox', token }),
  };
}

export type MoneyOutPath = paths['/v1/transactions/money_out'];
export const centavos: bigint = toCentavos('15.00');
export const clabeOk: boolean = isValidClabe('002010077777777771');
export const logger = jsonLineLogger();
export const contract = sandboxControl;
export const isPaykitError = (error: unknown): error is PaykitError => error instanceof PaykitError;
export const waitFor = (error: unknown): number | undefined =>
  error instanceof RateLimitedError ? error.retryAfterMs : undefined;
export const databases = testDatabases;
export const open: (options?: Parameters<typeof openDatabase>[0]) => Promise<Database> = openDatabase;
export const reconcile: (db: Database) => Promise<ReconcileResult> = reconcileOnce;
export const migrateLedger = (db: Database): Promise<MigrateResult> => migrateDatabase(db, [ledgerMigrations]);
export const reportLines: (text: string) => ReportLine[] = parseReportCsv;
export const migrate = (paths: string[]): Promise<Report> => migrateMoneyOut({ paths });
export const deprecation: string = INTERNAL_TRANSACTION_DEPRECATION;

export function mistakes(core: CoreClient) {
  void core.transactions.moneyOut({
    source_instrument_id: 'a',
    destination_instrument_id: 'b',
    // @ts-expect-error amounts are decimal strings, never numbers
    transaction_request: { amount: 15, currency: 'MXN' },
  });
  // @ts-expect-error the core client has no such operation
  void core.transactions.sendMoney({});
  // @ts-expect-error the API revision is a fixed literal
  const other: '2026-03-13' = API_VERSION;
  return other;
}
