// Everything the core service holds. One object per sandbox; reset() empties it.
import type { Seed } from '@paykit/contracts';
import type { Schema } from './spec.ts';

type SeedCore = Seed['core'];
export type SeedClient = SeedCore['clients'][number];
export type SeedAccount = SeedCore['accounts'][number];
export type SeedInstrument = SeedCore['instruments'][number];
export type Environment = 'staging' | 'production';

export interface Client {
  clientId: string;
  name: string;
  apiKeys: Record<Environment, string>;
}

export interface Credential {
  id: string;
  clientId: string;
  environment: Environment;
  clientSecret: string;
  status: 'ACTIVE' | 'INACTIVE';
  createdAtMs: number;
  updatedAtMs: number;
  deletedAtMs: number | null;
}

export interface Token {
  id: string;
  clientId: string;
  credentialId: string;
  environment: Environment;
  token: string;
  status: 'ACTIVE' | 'INACTIVE';
  createdAtMs: number;
  expiresAtMs: number;
}

export interface WebhookConfig {
  id: string;
  clientId: string;
  url: string;
  webhookType: 'MONEY_IN' | 'STATUS_UPDATE' | 'CEP' | 'REPORT' | 'REFUND';
  webhookStatus: 'ACTIVE' | 'INACTIVE';
  token: string;
  authType: 'AUTH' | 'NO_AUTH' | 'OAUTH';
  oauth: Record<string, unknown>;
  createdAtMs: number;
  updatedAtMs: number;
  deletedAtMs: number | null;
}

export interface Account {
  id: string;
  clientId: string;
  ownerId: string;
  platform: boolean;
  /** The platform's names for states other than ACTIVE are not shown: BLOCKED and CANCELLED are the sandbox's. */
  status: 'ACTIVE' | 'BLOCKED' | 'CANCELLED';
  balanceCentavos: bigint;
  /** Created by a remittance receive (a private account). */
  private: boolean;
}

export interface Instrument {
  id: string;
  clientId: string;
  ownerId: string;
  accountId: string | undefined;
  bankId: string;
  alias: string;
  type: 'RECEIVER' | 'SENDER_RECEIVER';
  status: 'ACTIVE' | 'BLOCKED' | 'DELETED';
  clabe: string;
  holderName: string;
  rfc: string;
}

/** A transaction as the sandbox keeps it; rendered to the API's camelCase shape by the routes. */
export interface Transaction {
  id: string;
  clientId: string;
  bankId: string;
  kind: 'PENNY_VALIDATION' | 'MONEY_OUT' | 'INTERNAL_TRANSACTION' | 'MONEY_IN' | 'REFUND';
  externalReference: string;
  trackingId: string;
  description: string;
  /** Centavos: money is never a float. */
  amountCentavos: bigint;
  category: Schema<'TransactionCategory'>;
  subCategory: Schema<'TransactionSubCategory'>;
  status: Schema<'TransactionStatus'>;
  sourceInstrumentId: string | undefined;
  destinationInstrumentId: string | undefined;
  originalTransactionId?: string;
  refundTransactionId?: string;
  cep?: {
    validationId: string;
    status: Schema<'CepStatus'>;
    beneficiaryName: string;
    beneficiaryRfc: string | null;
    createdAtMs: number;
    processedAtMs: number | null;
    cepUrl?: string;
  };
  /** Set for an incoming credit: the payer's side, as the MONEY_IN event showed it. */
  payer?: {
    account: string;
    name: string;
    rfc: string;
    institution: string;
    concept: string;
    numericReference: string;
  };
  reason?: { code: string; description: string };
  createdAtMs: number;
  updatedAtMs: number;
  clientReference?: string;
  /** Scheduled lifecycle steps, cancelled when a control call decides first. */
  pendingTaskIds: number[];
}

export interface IdempotencyEntry {
  key: string;
  clientId: string;
  fingerprint: string;
  state: 'in-progress' | 'done';
  transactionId?: string;
  /** money_out: the first answer (success or error), replayed as it was. */
  answer?: { status: number; body: unknown };
  /** Sandbox-clock time after which the key is forgotten (money_out: 24 h after the first request). */
  expiresAtMs?: number;
}

export interface EmittedEvent {
  clientId: string;
  type: 'MONEY_IN' | 'STATUS_UPDATE' | 'CEP' | 'REFUND' | 'REPORT';
  id: string;
  body: unknown;
  delivered: boolean;
  atMs: number;
}

export class CoreState {
  readonly clients = new Map<string, Client>();
  readonly credentials = new Map<string, Credential>();
  readonly tokens = new Map<string, Token>();
  readonly webhooks = new Map<string, WebhookConfig>();
  readonly accounts = new Map<string, Account>();
  readonly instruments = new Map<string, Instrument>();
  readonly transactions = new Map<string, Transaction>();
  readonly idempotency = new Map<string, IdempotencyEntry>();
  readonly events: EmittedEvent[] = [];

  /** Adds a seed's clients, credentials, accounts and instruments (existing ids are replaced). */
  load(seed: SeedCore, nowMs: number): void {
    for (const c of seed.clients) {
      this.clients.set(c.clientId, { clientId: c.clientId, name: c.name, apiKeys: { ...c.apiKeys } });
      for (const cred of c.credentials) {
        this.credentials.set(cred.id, {
          id: cred.id,
          clientId: c.clientId,
          environment: cred.environment,
          clientSecret: cred.clientSecret,
          status: cred.status,
          createdAtMs: nowMs,
          updatedAtMs: nowMs,
          deletedAtMs: null,
        });
      }
    }
    for (const a of seed.accounts) {
      this.accounts.set(a.id, {
        id: a.id,
        clientId: a.clientId,
        ownerId: a.ownerId,
        platform: a.platform,
        status: a.status,
        balanceCentavos: BigInt(a.balanceCentavos),
        private: false,
      });
    }
    for (const i of seed.instruments) {
      this.instruments.set(i.id, {
        id: i.id,
        clientId: i.clientId,
        ownerId: i.ownerId,
        accountId: i.accountId,
        bankId: i.bankId,
        alias: i.alias,
        type: i.type,
        status: i.status,
        clabe: i.clabe,
        holderName: i.holderName,
        rfc: i.rfc,
      });
    }
  }

  instrumentByClabe(clabe: string): Instrument | undefined {
    for (const i of this.instruments.values()) if (i.clabe === clabe) return i;
    return undefined;
  }

  /** A platform instrument: one whose account is a platform account (internal routing). */
  isPlatformInstrument(instrument: Instrument): boolean {
    const account = instrument.accountId ? this.accounts.get(instrument.accountId) : undefined;
    return account?.platform === true;
  }

  activeWebhook(clientId: string, type: WebhookConfig['webhookType']): WebhookConfig | undefined {
    for (const w of this.webhooks.values()) {
      if (w.clientId === clientId && w.webhookType === type && w.deletedAtMs === null && w.webhookStatus === 'ACTIVE')
        return w;
    }
    return undefined;
  }
}
