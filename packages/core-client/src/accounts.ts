// Private account lifecycle (2026-03-13): block (temporary, reversible by activate), activate
// (a blocked account back to ACTIVE), cancel (permanent). Bodies and answers are not shown by
// the reference: nothing is sent, and the platform's answer is returned as it is.
import { invoke, type RequestOptions } from '@paykit/runtime';
import { activateAccount, blockAccount, cancelAccount } from './generated/sdk.gen.ts';
import type { ActivateAccountResponse, BlockAccountResponse, CancelAccountResponse } from './generated/types.gen.ts';
import { zActivateAccountResponse, zBlockAccountResponse, zCancelAccountResponse } from './generated/zod.gen.ts';
import { bearerAuth, withToken, type ClientDeps } from './auth.ts';

export function accountOperations(deps: ClientDeps) {
  const { options, sdk, ctx, tokens } = deps;
  const clientId = options.clientId;
  return {
    /** Temporarily disables a private account; `activate` restores it. */
    block(accountId: string, requestOptions?: RequestOptions): Promise<BlockAccountResponse> {
      return withToken(
        deps,
        tokens,
        'blockAccount',
        (token, callOptions) =>
          invoke(
            ctx,
            'blockAccount',
            zBlockAccountResponse,
            (extra) => blockAccount({ client: sdk, path: { clientId, accountId }, auth: bearerAuth(token), ...extra }),
            callOptions,
          ),
        requestOptions,
      );
    },
    /** Restores a previously blocked private account to ACTIVE. */
    activate(accountId: string, requestOptions?: RequestOptions): Promise<ActivateAccountResponse> {
      return withToken(
        deps,
        tokens,
        'activateAccount',
        (token, callOptions) =>
          invoke(
            ctx,
            'activateAccount',
            zActivateAccountResponse,
            (extra) =>
              activateAccount({ client: sdk, path: { clientId, accountId }, auth: bearerAuth(token), ...extra }),
            callOptions,
          ),
        requestOptions,
      );
    },
    /** Permanently cancels a private account. There is no way back. */
    cancel(accountId: string, requestOptions?: RequestOptions): Promise<CancelAccountResponse> {
      return withToken(
        deps,
        tokens,
        'cancelAccount',
        (token, callOptions) =>
          invoke(
            ctx,
            'cancelAccount',
            zCancelAccountResponse,
            (extra) => cancelAccount({ client: sdk, path: { clientId, accountId }, auth: bearerAuth(token), ...extra }),
            callOptions,
          ),
        requestOptions,
      );
    },
  };
}

export type CoreAccounts = ReturnType<typeof accountOperations>;
