// The cash webhook lifecycle: created or changed → pending activation → a `webhook.activation`
// test request to the endpoint → active only on a 2xx answer; the client's previously active
// webhook is deactivated only then (one active cash webhook per client).
import type { SandboxRuntime } from '../../runtime.ts';
import type { Schema } from './spec.ts';
import { maskedClientId, type CashState, type CashWebhook } from './state.ts';

/** The webhook as the create operation answers it (the only answer carrying secret_token). */
export function createdView(webhook: CashWebhook): Schema<'CashWebhookConfiguration'> {
  return {
    id: webhook.id,
    endpoint_url: webhook.endpointUrl,
    secret_token: webhook.secretToken,
    created_at: webhook.createdAt,
    event: 'webhook.created',
  };
}

/**
 * sandbox choice: get-active and update are not in the reference; they answer the
 * CashWebhookConfiguration without secret_token (returned once, at creation; an update keeps it)
 * and without the creation's event.
 */
export type PublicWebhookView = Pick<Schema<'CashWebhookConfiguration'>, 'id' | 'endpoint_url' | 'created_at'>;

/** The webhook as get-active and update answer it. */
export function publicView(webhook: CashWebhook): PublicWebhookView {
  return { id: webhook.id, endpoint_url: webhook.endpointUrl, created_at: webhook.createdAt };
}

export function createWebhook(
  runtime: SandboxRuntime,
  state: CashState,
  apiKey: string,
  endpointUrl: string,
): CashWebhook {
  const webhook: CashWebhook = {
    id: ++state.lastWebhookId,
    apiKey,
    endpointUrl,
    secretToken: runtime.random.hex(64),
    createdAt: runtime.clock.now().toISOString(),
    state: 'pending_activation',
    activationSeq: 0,
  };
  state.webhooks.set(webhook.id, webhook);
  sendActivation(runtime, state, webhook);
  return webhook;
}

/**
 * A new endpoint_url deactivates the webhook at once and re-tests it; it is active again only if
 * the test passes. sandbox choice: the same URL is re-tested too (a way to retry a failed test).
 */
export function updateWebhook(
  runtime: SandboxRuntime,
  state: CashState,
  webhook: CashWebhook,
  endpointUrl: string,
): CashWebhook {
  if (state.active.get(webhook.apiKey) === webhook.id) state.active.delete(webhook.apiKey);
  webhook.endpointUrl = endpointUrl;
  webhook.state = 'pending_activation';
  sendActivation(runtime, state, webhook);
  return webhook;
}

function sendActivation(runtime: SandboxRuntime, state: CashState, webhook: CashWebhook): void {
  const seq = ++webhook.activationSeq;
  runtime.deliveries.enqueue({
    clientId: maskedClientId(webhook.apiKey),
    product: 'cash',
    eventType: 'webhook.activation',
    eventId: `activation:${webhook.id}`,
    url: webhook.endpointUrl,
    body: {
      event: 'webhook.activation',
      processed_at: runtime.clock.now().toISOString(),
    } satisfies Schema<'CashActivationEvent'>,
    auth: { kind: 'cash-hmac', secret: webhook.secretToken },
    // The test is sent once: a failed activation is not retried (the client updates to retry).
    once: true,
    onSettled: (delivery) => {
      // A later update sent a newer test: this answer no longer decides anything.
      if (webhook.activationSeq !== seq) return;
      if (delivery.state !== 'delivered') {
        webhook.state = 'inactive';
        return;
      }
      const previous = state.activeWebhook(webhook.apiKey);
      if (previous && previous.id !== webhook.id) previous.state = 'inactive';
      webhook.state = 'active';
      state.active.set(webhook.apiKey, webhook.id);
    },
  });
}
