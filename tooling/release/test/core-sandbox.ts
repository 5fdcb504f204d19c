// What a consumer script needs to call a sandbox's core API (tooling/release/test/consumer):
// the URL, the seed's first client and its staging key, and three instruments — a source with an
// account, another owner's account (an internal transfer) and one outside the platform (SPEI).
import type { SandboxProcess } from '@paykit/testing/sandbox';
import { childEnv } from '../src/exec.ts';

export async function coreSandboxEnv(sandbox: SandboxProcess): Promise<NodeJS.ProcessEnv> {
  const seed = await sandbox.control.getSeed();
  if (seed.status !== 200) throw new Error(`GET /_sandbox/seed answered ${seed.status}`);
  const client = seed.body.core.clients[0];
  if (!client) throw new Error('The sandbox seed has no core client.');
  const instruments = seed.body.core.instruments;
  const source = instruments.find((i) => i.accountId !== undefined);
  const internal = instruments.find((i) => i.accountId !== undefined && i.ownerId !== source?.ownerId);
  const external = instruments.find((i) => i.accountId === undefined);
  if (!source || !internal || !external)
    throw new Error('The sandbox seed lacks the three instruments the scripts use.');
  return childEnv({
    SANDBOX_CORE_URL: sandbox.urls.core,
    CORE_CLIENT_ID: client.clientId,
    CORE_API_KEY: client.apiKeys.staging,
    CORE_INSTRUMENTS: [source.id, internal.id, external.id].join(','),
  });
}
