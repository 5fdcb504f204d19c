// The default seed: what a newcomer, the CLI and `pnpm start` work with, no setup needed.
// Every key and secret here is a sandbox value, never valid on the platform.
import { readFile } from 'node:fs/promises';
import { Seed, type SeedInput } from '@paykit/contracts';
import * as z from 'zod';

export const CLIENT_ID = '11111111-1111-4111-8111-111111111111';
export const OWNERS = {
  acme: '33333333-3333-4333-8333-000000000001',
  bodegaNorte: '33333333-3333-4333-8333-000000000002',
  juanPerez: '33333333-3333-4333-8333-000000000003',
} as const;
const BANK_PLATFORM = '44444444-4444-4444-8444-000000000646';
const BANK_BBVA = '44444444-4444-4444-8444-000000000012';
const BANK_BANORTE = '44444444-4444-4444-8444-000000000072';

export const DEFAULT_SEED_INPUT: SeedInput = {
  core: {
    clients: [
      {
        clientId: CLIENT_ID,
        name: 'ACME Pagos SA de CV',
        apiKeys: { staging: 'pk_staging_sandbox_acme_0000000001', production: 'pk_production_sandbox_acme_000001' },
        credentials: [
          {
            id: '22222222-2222-4222-8222-000000000001',
            environment: 'staging',
            clientSecret: 'cs_staging_sandbox_acme_000000001',
          },
          {
            id: '22222222-2222-4222-8222-000000000002',
            environment: 'production',
            clientSecret: 'cs_production_sandbox_acme_00001',
          },
        ],
      },
    ],
    accounts: [
      { id: '55555555-5555-4555-8555-000000000001', clientId: CLIENT_ID, ownerId: OWNERS.acme, platform: true },
      { id: '55555555-5555-4555-8555-000000000002', clientId: CLIENT_ID, ownerId: OWNERS.bodegaNorte, platform: true },
      { id: '55555555-5555-4555-8555-000000000003', clientId: CLIENT_ID, ownerId: OWNERS.juanPerez, platform: true },
    ],
    instruments: [
      {
        id: '66666666-6666-4666-8666-000000000001',
        clientId: CLIENT_ID,
        ownerId: OWNERS.acme,
        accountId: '55555555-5555-4555-8555-000000000001',
        bankId: BANK_PLATFORM,
        alias: 'ACME operating account',
        type: 'SENDER_RECEIVER',
        clabe: '646180000000000012',
        holderName: 'ACME PAGOS SA DE CV',
        rfc: 'APA010101AB1',
      },
      {
        id: '66666666-6666-4666-8666-000000000002',
        clientId: CLIENT_ID,
        ownerId: OWNERS.bodegaNorte,
        accountId: '55555555-5555-4555-8555-000000000002',
        bankId: BANK_PLATFORM,
        alias: 'Bodega Norte collections',
        type: 'SENDER_RECEIVER',
        clabe: '646180000000000025',
        holderName: 'BODEGA NORTE SA DE CV',
        rfc: 'BNO020202CD2',
      },
      {
        id: '66666666-6666-4666-8666-000000000003',
        clientId: CLIENT_ID,
        ownerId: OWNERS.juanPerez,
        accountId: '55555555-5555-4555-8555-000000000003',
        bankId: BANK_PLATFORM,
        alias: 'Juan Pérez wallet',
        type: 'RECEIVER',
        clabe: '646180000000000038',
        holderName: 'JUAN PEREZ LOPEZ',
        rfc: 'PELJ800101XY3',
      },
      {
        id: '66666666-6666-4666-8666-000000000004',
        clientId: CLIENT_ID,
        ownerId: OWNERS.acme,
        bankId: BANK_BBVA,
        alias: 'Supplier at BBVA (external)',
        type: 'RECEIVER',
        clabe: '012180000045678907',
        holderName: 'PROVEEDORA DEL BAJIO SA DE CV',
        rfc: 'PBA030303EF4',
      },
      {
        id: '66666666-6666-4666-8666-000000000005',
        clientId: CLIENT_ID,
        ownerId: OWNERS.acme,
        bankId: BANK_BANORTE,
        alias: 'Payroll at Banorte (external)',
        type: 'RECEIVER',
        clabe: '072180000012345672',
        holderName: 'MARIA GONZALEZ RUIZ',
        rfc: 'GORM900202GH5',
      },
    ],
  },
  directDebit: {
    orgId: '77777777-7777-4777-8777-000000000001',
    apiKeys: ['dd_sandbox_key_acme_00000000000001'],
    customers: [
      {
        id: '77777777-7777-4777-8777-000000000101',
        name: 'Ana López',
        document_type: 'mx_rfc',
        document_number: 'LOAA800101ABC',
        email: 'ana@example.com',
      },
      {
        id: '77777777-7777-4777-8777-000000000102',
        name: 'Luis Martínez',
        document_type: 'mx_curp',
        document_number: 'MALL850505HDFRRS09',
      },
    ],
    instruments: [
      {
        id: '77777777-7777-4777-8777-000000000201',
        customer_id: '77777777-7777-4777-8777-000000000101',
        type: 'mx_clabe',
        clabe: '014180000076543216',
      },
      {
        id: '77777777-7777-4777-8777-000000000202',
        customer_id: '77777777-7777-4777-8777-000000000102',
        type: 'mx_direct_debit_card',
        card_number: '4111111111111111',
        bank: 'mx_bbva',
      },
    ],
  },
  cash: [{ apiKey: 'cashsandboxacme00000000000000001', apiSecret: 'cash_secret_sandbox_acme_0000001' }],
  bearer: {
    billpay: ['bp_sandbox_token_acme_000000000001'],
    'gift-cards': ['gc_sandbox_token_acme_000000000001'],
    lottery: [{ token: 'lt_sandbox_token_acme_000000000001', payeeId: 'PAYEE-0001' }],
  },
};

export const DEFAULT_SEED: Seed = Seed.parse(DEFAULT_SEED_INPUT);

/** Reads a seed file (JSON), with an error that says what is wrong and where. */
export async function loadSeedFile(file: string): Promise<Seed> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new Error(
      `Cannot read the seed file ${file}: ${error instanceof Error ? error.message : error}. It must be a JSON document like the default seed (GET /_sandbox/seed).`,
      { cause: error },
    );
  }
  const result = Seed.safeParse(raw);
  if (!result.success) throw new Error(`The seed file ${file} is not a valid seed:\n${z.prettifyError(result.error)}`);
  return result.data;
}
