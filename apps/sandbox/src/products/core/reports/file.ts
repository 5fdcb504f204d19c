// The file a REPORT event announces. The reference shows no download for it, so the sandbox
// serves it on the control API in the CSV format paykit imports (`paykit reports import`), written
// by @paykit/contracts' formatter, the one the ledger's import parses with, so the two can never
// drift apart.
import { formatReportCsv } from '@paykit/contracts';
import { ControlError } from '../../../control/errors.ts';
import type { CoreService } from '../index.ts';
import type { EmittedEvent, Transaction } from '../state.ts';
import { formatAmount } from '../transactions/common.ts';
import { mexicoCityDate, mexicoCitySeconds } from '../time.ts';

interface ReportBody {
  client_id: string;
  file_type: 'TRANSACTIONS' | 'ACCOUNT_STATEMENT';
  period: 'DAILY' | 'MONTHLY';
  file_name: string;
  account_id?: string;
}

/**
 * Control API. sandbox choices: the file lists the client's transactions created in the
 * report's period (the Mexico City day, or month, the REPORT was emitted on), oldest first, as
 * the sandbox holds them when the file is downloaded (their current status); an
 * ACCOUNT_STATEMENT only those whose source or destination is the report's account. Penny
 * validations, refunds and incoming credits are transactions too and are listed. A name two
 * clients were sent needs `clientId` (409 without it); an unknown name is a 404.
 */
export function reportFile(core: CoreService, fileName: string, clientId?: string): string {
  const report = findReport(core, fileName, clientId);
  const body = report.body as ReportBody;
  const day = mexicoCityDate(report.atMs);
  const inPeriod =
    body.period === 'DAILY'
      ? (ms: number) => mexicoCityDate(ms) === day
      : (ms: number) => mexicoCityDate(ms).slice(0, 7) === day.slice(0, 7);
  const lines = [...core.state.transactions.values()]
    .filter((tx) => tx.clientId === body.client_id && inPeriod(tx.createdAtMs))
    .filter((tx) => body.account_id === undefined || touchesAccount(core, tx, body.account_id))
    // Map order is creation order; the sort is stable, so equal times keep it.
    .sort((a, b) => a.createdAtMs - b.createdAtMs)
    .map((tx) => ({
      transactionId: tx.id,
      trackingKey: tx.trackingId,
      transactionDate: mexicoCitySeconds(tx.createdAtMs),
      subCategory: tx.subCategory,
      amount: formatAmount(tx.amountCentavos),
      status: tx.status,
    }));
  return formatReportCsv(lines);
}

function findReport(core: CoreService, fileName: string, clientId: string | undefined): EmittedEvent {
  const reports = core.state.events.filter(
    (e) => e.type === 'REPORT' && e.id === fileName && (clientId === undefined || e.clientId === clientId),
  );
  const hint = 'Use the file_name of a REPORT event (POST /_sandbox/core/reports emits one).';
  if (reports.length === 0)
    throw new ControlError(
      404,
      `No report file ${fileName.slice(0, 200)}${clientId === undefined ? '' : ` for client ${clientId}`}.`,
      hint,
    );
  if (reports.length > 1)
    throw new ControlError(
      409,
      `Several clients were sent a report named ${fileName}.`,
      'Add ?clientId=<the client> to say whose file it is.',
    );
  return reports[0]!;
}

function touchesAccount(core: CoreService, tx: Transaction, accountId: string): boolean {
  return [tx.sourceInstrumentId, tx.destinationInstrumentId].some(
    (id) => id !== undefined && core.state.instruments.get(id)?.accountId === accountId,
  );
}
