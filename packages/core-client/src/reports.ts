// Reports: the download address of a file a REPORT event announced (documented: POST
// /v1/reports/clients/{clientId}/report/download), and the file itself, fetched from that address.
import { invoke, type RequestOptions } from '@paykit/runtime';
import { bearerAuth, withToken, type ClientDeps } from './auth.ts';
import { downloadReportFile } from './generated/sdk.gen.ts';
import type { ReportDownload, ReportType } from './generated/types.gen.ts';
import { zDownloadReportFileResponse } from './generated/zod.gen.ts';
import { fetchReportFile, type ReportFileOptions } from './report-file.ts';

export interface ReportDownloadInput {
  reportType: ReportType;
  /** The file's day, `YYYY-MM-DD` (for the monthly types the platform moves it to the month's last day). */
  operationDate: string;
  /** The account's CLABE: required by the `_ACCOUNT_STATEMENT` types. */
  clabeNumber?: string;
}

/** What the platform answers; `found` is false when it has no such file (both fields empty). */
export interface ReportDownloadAnswer {
  fileName: string;
  downloadUrl: string;
  found: boolean;
}

export function reportOperations(deps: ClientDeps) {
  const { options, sdk, ctx, tokens } = deps;
  const clientId = options.clientId;
  return {
    /**
     * Asks where the file of `reportType` and `operationDate` is. A file that does not exist (yet)
     * is `found: false`, not an error. The address may be short-lived: fetch it right away.
     */
    async download(input: ReportDownloadInput, requestOptions?: RequestOptions): Promise<ReportDownloadAnswer> {
      const body = {
        client_id: clientId,
        report_type: input.reportType,
        operation_date: input.operationDate,
        ...(input.clabeNumber === undefined ? {} : { clabe_number: input.clabeNumber }),
      };
      const answer: ReportDownload = await withToken(deps, tokens, 'downloadReportFile', (token) =>
        invoke(
          ctx,
          'downloadReportFile',
          zDownloadReportFileResponse,
          (extra) => downloadReportFile({ client: sdk, path: { clientId }, body, auth: bearerAuth(token), ...extra }),
          requestOptions,
        ),
      );
      const fileName = answer.file_name ?? '';
      const downloadUrl = answer.download_url ?? '';
      return { fileName, downloadUrl, found: fileName !== '' && downloadUrl !== '' };
    },
    /**
     * The file at `downloadUrl` as text, read as a stream and refused past `maxBytes`, under the
     * client's timeout (or `timeoutMs`). No credentials are sent to it: the address is its own
     * authorisation, and may be on another host than the API.
     */
    fetchFile(downloadUrl: string, fileOptions?: ReportFileOptions): Promise<string> {
      return fetchReportFile(downloadUrl, { timeoutMs: options.timeoutMs, fetch: options.fetch, ...fileOptions });
    },
  };
}

export type CoreReports = ReturnType<typeof reportOperations>;
