// The sandbox's default seed as a test's clients need it: the options of a core client (the first
// seeded client, with its staging credentials) and of a cash client, against a sandbox process.
// Options rather than clients, so this package depends on no product client: a test passes them
// to createCoreClient / createCashClient with what it adds (a clock, onTransactionCreated, …).
import type { SandboxProcess } from './sandbox-process.ts';

export interface SeededCoreOptions {
  environment: 'sandbox';
  baseUrl: string;
  clientId: string;
  /** The staging API key. */
  apiKey: string;
  /** The staging credential's client_secret. */
  clientSecret: string;
}

export interface SeededCashOptions {
  environment: 'sandbox';
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
}

export interface SeededClients {
  core: SeededCoreOptions;
  cash: SeededCashOptions;
}

/** Reads the seed once; throws when the sandbox does not answer it, or it holds no core or cash client. */
export async function seededClients(sandbox: Pick<SandboxProcess, 'control' | 'urls'>): Promise<SeededClients> {
  const answer = await sandbox.control.getSeed();
  if (answer.status !== 200) throw new Error(`GET /_sandbox/seed answered ${answer.status}: is the sandbox healthy?`);
  const client = answer.body.core.clients[0];
  const staging = client?.credentials.find((credential) => credential.environment === 'staging');
  const cash = answer.body.cash[0];
  if (client === undefined || staging === undefined || cash === undefined)
    throw new Error('the sandbox seed has no core client with a staging credential, or no cash client');
  return {
    core: {
      environment: 'sandbox',
      baseUrl: sandbox.urls.core,
      clientId: client.clientId,
      apiKey: client.apiKeys.staging,
      clientSecret: staging.clientSecret,
    },
    cash: { environment: 'sandbox', baseUrl: sandbox.urls.cash, apiKey: cash.apiKey, apiSecret: cash.apiSecret },
  };
}
