// Opening a private account: what a remittance receive does on the platform. The account is a
// client's private (non-platform) account with one RECEIVER instrument, a new CLABE of the
// platform's bank, so the remitted funds have somewhere to land and the account can then be
// blocked, activated or cancelled through the core API.
import { buildClabe } from '../../../clabe.ts';
import type { SeededRandom } from '../../../random.ts';
import type { CoreService } from '../index.ts';

/** The bank id of the platform's own bank (646) in the default seed. */
const PLATFORM_BANK_ID = '44444444-4444-4444-8444-000000000646';

/** A new CLABE of the platform's bank (646) not yet in use (`taken` says which are). */
function newPlatformClabe(random: SeededRandom, taken: (clabe: string) => boolean): string {
  for (;;) {
    // 646 = the platform's bank code, 180 = the branch the seed's platform CLABEs use.
    const clabe = buildClabe('646', '180', random.digits(11));
    if (!taken(clabe)) return clabe;
  }
}

export function openPrivateAccount(
  core: CoreService,
  input: { clientId: string; ownerId: string; holderName: string; rfc?: string },
): { accountId: string; instrumentId: string; clabe: string } {
  const { state, runtime } = core;
  const accountId = runtime.random.uuid();
  const instrumentId = runtime.random.uuid();
  const clabe = newPlatformClabe(runtime.random, (candidate) => state.instrumentByClabe(candidate) !== undefined);
  state.accounts.set(accountId, {
    id: accountId,
    clientId: input.clientId,
    ownerId: input.ownerId,
    platform: false,
    status: 'ACTIVE',
    balanceCentavos: 0n,
    private: true,
  });
  state.instruments.set(instrumentId, {
    id: instrumentId,
    clientId: input.clientId,
    ownerId: input.ownerId,
    accountId,
    // The platform bank of any seeded 646 instrument, so a loaded seed with its own bank ids stays consistent.
    bankId: [...state.instruments.values()].find((i) => i.clabe.startsWith('646'))?.bankId ?? PLATFORM_BANK_ID,
    alias: `Private account of ${input.holderName}`,
    type: 'RECEIVER',
    status: 'ACTIVE',
    clabe,
    holderName: input.holderName,
    rfc: input.rfc ?? '',
  });
  return { accountId, instrumentId, clabe };
}
