// The five core webhooks of a sandbox client pointed at a webhook gateway, through that client's
// paykit core client: what every end-to-end test of the gateway, the worker and the reliability
// suite starts from. Typed by shape (the core client's tests depend on this package, so it cannot
// depend on the core client).
import { CORE_EVENT_PATHS, CORE_EVENT_TYPES, type CoreEventType } from '@paykit/contracts';

type Registration = { webhookType: CoreEventType; url: string } & ({ token: string } | { authType: 'NO_AUTH' });

export interface WebhookRegistrar {
  webhooks: { register(input: Registration): Promise<unknown> };
}

/** Registers each core event type at the gateway's route for it: bearer `token`, REPORT with auth_type NO_AUTH. */
export async function registerGatewayWebhooks(
  core: WebhookRegistrar,
  gatewayUrl: string,
  token: string,
): Promise<void> {
  for (const type of CORE_EVENT_TYPES) {
    const url = `${gatewayUrl}${CORE_EVENT_PATHS[type]}`;
    await core.webhooks.register(
      type === 'REPORT' ? { webhookType: type, url, authType: 'NO_AUTH' } : { webhookType: type, url, token },
    );
  }
}
