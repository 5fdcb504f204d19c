// REPORT: the flat event that announces a report file.
import type { ReportRequest } from '@paykit/contracts';
import type { components } from '@paykit/core-client/paths';
import { ControlError } from '../../../control/errors.ts';
import { emitReportEvent } from '../webhooks/emit.ts';
import type { CoreService } from '../index.ts';
import { isoMexicoCity, mexicoCityDate } from '../time.ts';

type ReportEvent = components['schemas']['ReportEvent'];

/**
 * Control API. sandbox choices (file download is not shown): file_name is
 * `<FILE_TYPE>_<PERIOD>[_<accountId>]_<date>_<8 hex>.csv`, the date the Mexico City day (DAILY)
 * or month (MONTHLY) of the sandbox clock. Receivers dedupe REPORT by file_name, and their store
 * outlives a sandbox process: the hex part, drawn from the random seed (fresh per start by
 * default), keeps a name from coming back in a later run or after a reset; `_2`, `_3`… guard the
 * (unlikely) draw of a name already announced to the client. ACCOUNT_STATEMENT without accountId
 * covers the client's first account; an accountId that is not the client's is a 404.
 */
export function emitReport(core: CoreService, input: ReportRequest): { fileName: string } {
  const { state, runtime } = core;
  if (!state.clients.has(input.clientId))
    throw new ControlError(404, `No client ${input.clientId}.`, 'Use a client id of the seed (GET /_sandbox/seed).');
  let accountId: string | undefined;
  if (input.fileType === 'ACCOUNT_STATEMENT') {
    const accounts = [...state.accounts.values()].filter((a) => a.clientId === input.clientId);
    const account = input.accountId === undefined ? accounts[0] : accounts.find((a) => a.id === input.accountId);
    if (!account)
      throw new ControlError(
        404,
        input.accountId === undefined
          ? `Client ${input.clientId} has no account.`
          : `No account ${input.accountId} for client ${input.clientId}.`,
      );
    accountId = account.id;
  }
  const day = mexicoCityDate(runtime.clock.nowMs());
  const stem = [
    input.fileType,
    input.period,
    ...(accountId ? [accountId] : []),
    input.period === 'DAILY' ? day : day.slice(0, 7),
    runtime.random.hex(8),
  ].join('_');
  const taken = new Set(
    state.events.filter((e) => e.type === 'REPORT' && e.clientId === input.clientId).map((e) => e.id),
  );
  let fileName = `${stem}.csv`;
  for (let n = 2; taken.has(fileName); n++) fileName = `${stem}_${n}.csv`;
  const body: ReportEvent = {
    client_id: input.clientId,
    file_type: input.fileType,
    period: input.period,
    file_name: fileName,
    created_at: isoMexicoCity(runtime.clock.nowMs()),
    ...(accountId ? { account_id: accountId } : {}),
  };
  emitReportEvent(runtime, state, input.clientId, body);
  return { fileName };
}
