// POST /v1/reports/clients/{clientId}/report/download (bearer, documented) answers the file's
// name and a download_url; GET /v1/reports/files/{token} serves the file there, without a bearer
// (the platform's address is its own authorisation; how it is protected is not shown).
import { zDownloadReportFileBody, zDownloadReportFilePath } from '@paykit/core-client/zod';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireBearer, requireOwnClient } from '../auth/caller.ts';
import { parseBody, parsePath } from './parse.ts';
import { CoreHttpError } from '../errors.ts';
import type { CoreService } from '../index.ts';
import type { Ok } from '../spec.ts';
import { findReportFor, grantFile, redeemFile } from '../reports/download.ts';
import { reportFile } from '../reports/file.ts';

const DOWNLOAD_PATH = '/v1/reports/clients/:clientId/report/download';
const FILES_PATH = '/v1/reports/files/';

/** This service's address as the caller reached it (`http://host:port/core`), for the download_url. */
function serviceBase(request: FastifyRequest): string {
  const url = request.url;
  const at = url.indexOf('/v1/reports/');
  return `${request.protocol}://${request.host}${at > 0 ? url.slice(0, at) : ''}`;
}

export function registerReportRoutes(app: FastifyInstance, core: CoreService): void {
  app.post<{ Params: { clientId: string } }>(DOWNLOAD_PATH, async (request) => {
    const caller = requireBearer(core.state, core.runtime.clock, request);
    const { clientId } = parsePath(zDownloadReportFilePath, request.params);
    requireOwnClient(caller, clientId);
    const body = parseBody(zDownloadReportFileBody, request.body, 'downloadReportFile');
    if (body.client_id !== undefined && body.client_id !== clientId)
      throw new CoreHttpError(
        400,
        'DATA_ERROR',
        'downloadReportFile: client_id in the body must be the client id of the path.',
      );
    const report = findReportFor(core, {
      clientId,
      reportType: body.report_type,
      operationDate: body.operation_date,
      ...(body.clabe_number === undefined ? {} : { clabeNumber: body.clabe_number }),
    });
    if (!report) return { file_name: '', download_url: '' } satisfies Ok<'downloadReportFile'>;
    const token = grantFile(core, report, core.runtime.settings.core.reportUrlTtlSeconds);
    return {
      file_name: report.id,
      download_url: `${serviceBase(request)}${FILES_PATH}${token}`,
    } satisfies Ok<'downloadReportFile'>;
  });

  app.get<{ Params: { token: string } }>(`${FILES_PATH}:token`, async (request, reply) => {
    const { clientId, fileName } = redeemFile(core, request.params.token);
    const text = reportFile(core, fileName, clientId);
    return reply
      .code(200)
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${fileName}"`)
      .header('cache-control', 'no-store')
      .send(text);
  });
}
