// Private account lifecycle (added 2026-03-13): block (ACTIVE → BLOCKED), activate
// (BLOCKED → ACTIVE), cancel (ACTIVE or BLOCKED → CANCELLED, permanent). BLOCKED and CANCELLED are
// the sandbox's names: the reference shows only ACTIVE.
import {
  zActivateAccountBody,
  zActivateAccountPath,
  zBlockAccountBody,
  zBlockAccountPath,
  zCancelAccountBody,
  zCancelAccountPath,
} from '@paykit/core-client/zod';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type * as z from 'zod';
import { transitionAccount, type AccountAction } from '../accounts/lifecycle.ts';
import { requireBearer, requireOwnClient } from '../auth/caller.ts';
import { parsePath } from './parse.ts';
import type { CoreService } from '../index.ts';
import type { Ok } from '../spec.ts';
import type { Account } from '../state.ts';

interface AccountParams {
  clientId: string;
  accountId: string;
}

/**
 * The documentation shows the answer as the updated account object with `account_status`; its
 * other fields are not shown. sandbox choice: the account's id and its status (also as `status`).
 */
type AccountLifecycleAnswer = {
  id: string;
  account_status: Account['status'];
  status: Account['status'];
};

export function registerAccountRoutes(app: FastifyInstance, core: CoreService): void {
  // The bodies of these operations are not shown, so any body is accepted and ignored — including
  // none at all under `content-type: application/json`, which Fastify's default parser would
  // refuse. The parser is scoped to these routes by the plugin's encapsulation.
  void app.register(async (scoped) => {
    scoped.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, raw: string, done) => {
      if (raw.trim() === '') return done(null, undefined);
      try {
        done(null, JSON.parse(raw) as unknown);
      } catch {
        done(null, undefined); // ignored anyway
      }
    });

    const route =
      (action: AccountAction, pathSchema: z.ZodType<AccountParams>, bodySchema: z.ZodType) =>
      async (request: FastifyRequest<{ Params: AccountParams }>) => {
        const caller = requireBearer(core.state, core.runtime.clock, request);
        requireOwnClient(caller, request.params.clientId);
        const { clientId, accountId } = parsePath(pathSchema, request.params);
        bodySchema.safeParse(request.body); // the generated schema accepts any body: it is not shown, and ignored
        const account = transitionAccount(core, clientId, accountId, action);
        const answer: AccountLifecycleAnswer = {
          id: account.id,
          account_status: account.status,
          status: account.status,
        };
        return answer satisfies Ok<'blockAccount'> & Ok<'activateAccount'> & Ok<'cancelAccount'>;
      };

    scoped.put('/v1/clients/:clientId/accounts/:accountId/block', route('block', zBlockAccountPath, zBlockAccountBody));
    scoped.patch(
      '/v1/clients/:clientId/accounts/:accountId/activate',
      route('activate', zActivateAccountPath, zActivateAccountBody),
    );
    scoped.put(
      '/v1/clients/:clientId/accounts/:accountId/cancel',
      route('cancel', zCancelAccountPath, zCancelAccountBody),
    );
  });
}
