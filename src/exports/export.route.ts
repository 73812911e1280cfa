import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { storableDate } from '../stored-values.ts';
import { OWNER_ADMIN, requireAccess } from '../api/access.ts';
import { notFound, validationFailed } from '../api/errors.ts';
import { once } from '../api/list/list-query.ts';
import { strictQuerySchema, type RoutePlugin, readResponses } from '../api/route-schema.ts';
import { ExportInputError, resolveExportRequest, runExportOn } from './export-run.ts';
import { EXPORT_REPORT_NAMES, findExportReport } from './export-reports.ts';
import {
  EXPORT_FORMATS,
  FORMAT_CONTENT_TYPE,
  FORMAT_EXTENSION,
  type ExportFormat,
} from './export-writer.ts';

const date = storableDate('must be a date (YYYY-MM-DD)');

/** GET /exports/{report} query: strict, as the team-payout endpoints (an unknown name is 422). */
export const exportQuery = strictQuerySchema(
  z.object({
    format: once(z.enum(EXPORT_FORMATS, { error: `must be one of ${EXPORT_FORMATS.join(', ')}` })),
    from: once(date).optional(),
    to: once(date).optional(),
  }),
);

/** A report's name: any other is the 404 of a record that does not exist. */
const exportParams = z.object({ report: z.enum(EXPORT_REPORT_NAMES as [string, ...string[]]) });

/**
 * The report (404) and the plan rules of its data (402) come before the query (422): they are
 * checked on the raw path, before validation.
 */
function reportAllowed(request: FastifyRequest): void {
  const report = findExportReport((request.params as { report: string }).report);
  if (!report) throw notFound();
  requireAccess(request.caller, report.access);
}

const FILE_HEADERS = {
  'Content-Disposition': {
    type: 'string',
    description: 'attachment; filename="<report>-<workspace>-<from>-<to>.<ext>"',
  },
  'X-Export-Rows': { type: 'integer', minimum: 0, description: 'The rows in the file.' },
  'X-Export-SHA256': {
    type: 'string',
    pattern: '^[0-9a-f]{64}$',
    description: 'SHA-256 of the file, hex.',
  },
};

/**
 * GET /exports/{report}: the report of the caller's workspace as one file, streamed. Owner and
 * Admin with read scope (403 otherwise, checked first), then the plan rules of the data in it
 * (unpaid time and profitability need Agency; bills leave drafts out below Agency), then the
 * query. The file is written by the same code as the CLI's and scheduled exports (so its bytes
 * are theirs), into a temporary folder that is removed once the response has been sent.
 */
export const exportRoutes: RoutePlugin = async (app, { context }) => {
  app.get(
    '/exports/:report',
    {
      config: { access: { roles: OWNER_ADMIN, scope: 'read' }, beforeInput: reportAllowed },
      schema: {
        summary:
          'A reconciliation export of the workspace as one file (CSV, NDJSON or Parquet), streamed with a filename; money as exact decimals, ISO dates, stable order',
        description:
          'Who may call: Owner, Admin; read scope; the plan rules of the data (unpaid-time and profitability-*: Agency plan; bills and bill lines without drafts below Agency).',
        params: exportParams,
        querystring: exportQuery,
        responseHeaders: { 200: FILE_HEADERS },
        response: readResponses(
          {
            200: {
              description: 'The file',
              content: {
                'text/csv': { schema: z.string() },
                'application/x-ndjson': { schema: z.string() },
                'application/vnd.apache.parquet': {
                  schema: z.string().meta({ format: 'binary' }),
                },
              },
            },
          },
          {
            404: ['not_found'],
            422: ['validation_failed', 'invalid_query'],
            503: ['read_model_unavailable'],
          },
        ),
      },
    },
    async (request, reply) => {
      const caller = request.caller;
      const report = findExportReport(request.params.report)!;
      const query = request.query;
      if (query.from !== undefined && query.to !== undefined && query.from > query.to)
        throw validationFailed({ to: 'must not be before from' });
      const dir = await mkdtemp(path.join(tmpdir(), 'ledgerline-export-'));
      try {
        const { folder, manifest, params } = await context.read(async (connection) => {
          const exportRequest = await resolveExportRequest(connection, {
            report: report.name,
            workspaceId: caller.workspaceId,
            format: query.format,
            from: query.from,
            to: query.to,
          }).catch((error: unknown) => {
            throw error instanceof ExportInputError
              ? validationFailed({ query: error.message })
              : error;
          });
          return {
            ...(await runExportOn(connection, exportRequest, { outDir: dir, runName: 'run' })),
            params: exportRequest.params,
          };
        });
        const file = manifest.files[0]!;
        const stream = createReadStream(path.join(folder, file.name));
        stream.on('close', () => void rm(dir, { recursive: true, force: true }));
        return await reply
          .type(FORMAT_CONTENT_TYPE[query.format])
          .header('Content-Length', String(file.bytes))
          .header(
            'Content-Disposition',
            `attachment; filename="${exportFileName(report.name, caller.workspaceId, params, query.format)}"`,
          )
          .header('X-Export-Rows', String(file.rows))
          .header('X-Export-SHA256', file.sha256)
          .send(stream);
      } catch (error) {
        await rm(dir, { recursive: true, force: true });
        throw error;
      }
    },
  );
};

/** `<report>-<workspace>-<from>-<to>.<ext>`; an open end of the range is `all`. */
export function exportFileName(
  report: string,
  workspaceId: string,
  range: { from?: string | undefined; to?: string | undefined },
  format: ExportFormat,
): string {
  return `${report}-${workspaceId}-${range.from ?? 'all'}-${range.to ?? 'all'}.${FORMAT_EXTENSION[format]}`;
}
