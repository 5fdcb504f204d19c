// The documented second step of the report flow: which announced file a (report_type,
// operation_date) names, and a short-lived address to fetch it from (the platform answers a
// download_url; the sandbox serves the file there itself, see ../routes/reports.ts).
import { randomBytes } from 'node:crypto';
import { CoreHttpError } from '../errors.ts';
import type { CoreService } from '../index.ts';
import type { Schema } from '../spec.ts';
import type { CoreState, EmittedEvent } from '../state.ts';
import { mexicoCityDate } from '../time.ts';

type ReportType = Schema<'ReportType'>;
type ReportEvent = Schema<'ReportEvent'>;

interface FileGrant {
  clientId: string;
  fileName: string;
  expiresAtMs: number;
}

// Per state: a reset forgets every address with the rest of the sandbox.
const grants = new WeakMap<CoreState, Map<string, FileGrant>>();

function grantsOf(state: CoreState): Map<string, FileGrant> {
  let map = grants.get(state);
  if (!map) grants.set(state, (map = new Map()));
  return map;
}

const SHAPE: Record<ReportType, { fileType: ReportEvent['file_type']; period: ReportEvent['period'] }> = {
  DAILY: { fileType: 'TRANSACTIONS', period: 'DAILY' },
  MONTHLY: { fileType: 'TRANSACTIONS', period: 'MONTHLY' },
  DAILY_ACCOUNT_STATEMENT: { fileType: 'ACCOUNT_STATEMENT', period: 'DAILY' },
  MONTHLY_ACCOUNT_STATEMENT: { fileType: 'ACCOUNT_STATEMENT', period: 'MONTHLY' },
};

export interface DownloadQuery {
  clientId: string;
  reportType: ReportType;
  operationDate: string;
  clabeNumber?: string;
}

/**
 * The REPORT the query names: of this client, type and period, emitted on the operation date's
 * Mexico City day (DAILY) or month (MONTHLY, the platform moving the date to the month's last
 * day). sandbox choice: when several were emitted (the control API can emit twice a day), the
 * latest. The account statement types need the CLABE of one of the client's accounts (400
 * otherwise). undefined: no such file (the platform answers empty fields).
 */
export function findReportFor(core: CoreService, query: DownloadQuery): EmittedEvent | undefined {
  const { fileType, period } = SHAPE[query.reportType];
  let accountId: string | undefined;
  if (fileType === 'ACCOUNT_STATEMENT') {
    if (query.clabeNumber === undefined)
      throw new CoreHttpError(
        400,
        'MISSING_REQUIRED_FIELDS',
        `downloadReportFile: clabe_number is required for ${query.reportType}.`,
      );
    // Only a platform account has a statement: an external instrument's CLABE is not one.
    const instrument = [...core.state.instruments.values()].find(
      (i) => i.clientId === query.clientId && i.clabe === query.clabeNumber && i.accountId !== undefined,
    );
    if (!instrument?.accountId)
      throw new CoreHttpError(
        400,
        'DATA_ERROR',
        "downloadReportFile: clabe_number is not the CLABE of one of the client's accounts.",
      );
    accountId = instrument.accountId;
  }
  const sameDay =
    period === 'DAILY'
      ? (day: string) => day === query.operationDate
      : (day: string) => day.slice(0, 7) === query.operationDate.slice(0, 7);
  const matches = core.state.events.filter((e) => {
    if (e.type !== 'REPORT' || e.clientId !== query.clientId) return false;
    const body = e.body as ReportEvent;
    return (
      body.file_type === fileType &&
      body.period === period &&
      (accountId === undefined || body.account_id === accountId) &&
      sameDay(mexicoCityDate(e.atMs))
    );
  });
  return matches.at(-1);
}

/** A new address for the file, valid `ttlSeconds` of the sandbox clock: a random token stands in for the platform's signed URL. */
export function grantFile(core: CoreService, report: EmittedEvent, ttlSeconds: number): string {
  const token = randomBytes(24).toString('base64url');
  const map = grantsOf(core.state);
  const now = core.runtime.clock.nowMs();
  for (const [key, grant] of map) if (grant.expiresAtMs <= now) map.delete(key);
  map.set(token, { clientId: report.clientId, fileName: report.id, expiresAtMs: now + ttlSeconds * 1000 });
  return token;
}

/** The file a token names, or a 404 naming why (unknown or expired: ask for the address again). */
export function redeemFile(core: CoreService, token: string): { clientId: string; fileName: string } {
  const grant = grantsOf(core.state).get(token);
  const hint = 'ask POST /v1/reports/clients/{client_id}/report/download for a new download_url';
  if (!grant) throw new CoreHttpError(404, 'RESOURCE_NOT_FOUND', `No report file at this address: ${hint}.`);
  if (grant.expiresAtMs <= core.runtime.clock.nowMs())
    throw new CoreHttpError(404, 'RESOURCE_NOT_FOUND', `This download_url has expired: ${hint}.`);
  return { clientId: grant.clientId, fileName: grant.fileName };
}
