// What the cash service holds: the clients' api keys, their webhooks (one active per client)
// and the cash operations. Replaced as a whole on reset, so callbacks of deliveries still in
// flight from before a reset change only the old, forgotten state.
import type { CashOperation } from '@paykit/contracts';

export type WebhookState = 'pending_activation' | 'active' | 'inactive';

export interface CashWebhook {
  id: number;
  apiKey: string;
  endpointUrl: string;
  secretToken: string;
  createdAt: string;
  state: WebhookState;
  /** Bumped by every activation test; only the answer to the latest one counts. */
  activationSeq: number;
}

export interface StoredOperation extends CashOperation {
  apiKey: string;
}

export class CashState {
  /** api_key → api_secret, in seeding order (the first is the control API's default). */
  readonly keys = new Map<string, string>();
  readonly webhooks = new Map<number, CashWebhook>();
  /** api_key → id of its one active webhook. */
  readonly active = new Map<string, number>();
  readonly operations = new Map<number, StoredOperation>();
  readonly references = new Set<string>();
  lastWebhookId = 0;

  activeWebhook(apiKey: string): CashWebhook | undefined {
    const id = this.active.get(apiKey);
    return id === undefined ? undefined : this.webhooks.get(id);
  }
}

/**
 * The client id the delivery queue and its log show for a cash client: the api_key masked
 * (the key is a credential and never appears unmasked in a log or the control API).
 */
export function maskedClientId(apiKey: string): string {
  return `cash:${apiKey.slice(0, 4)}…${apiKey.slice(-4)}`;
}
