import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { clientInput } from '../api/clients/client.input.ts';
import { clientListQuery } from '../api/clients/client.list.ts';
import { clientRecord } from '../api/clients/client.record.ts';
import { expenseCreateInput, expenseUpdateInput } from '../api/expenses/expense.input.ts';
import { expenseRecord } from '../api/expenses/expense.record.ts';
import { invoiceListQuery } from '../api/invoices/invoice.list.ts';
import { invoiceRecord } from '../api/invoices/invoice.record.ts';
import { projectListQuery } from '../api/projects/project.list.ts';
import { projectRecord } from '../api/projects/project.record.ts';
import { listResponse, singleResponse } from '../api/schema-parts.ts';
import { taskCreateInput, taskUpdateInput } from '../api/tasks/task.input.ts';
import { taskRecord } from '../api/tasks/task.record.ts';
import { timeEntryUpdateInput } from '../api/time-entries/time-entry.input.ts';
import { timeEntryRecord } from '../api/time-entries/time-entry.record.ts';
import { payoutSummarySchema } from '../reports/payout-summary/payout-summary.schema.ts';
import { exportOperation } from '../exports/export.route.ts';
import { profitabilityOperation } from '../reports/profitability/profitability.route.ts';
import { billListQuery, billRecord } from '../reports/team-payouts/bills.ts';
import { payeeListQuery, payeeRecord } from '../reports/team-payouts/payees.ts';
import { paymentListQuery, paymentRecord } from '../reports/team-payouts/payments.ts';
import { unpaidTimeQuery, unpaidTimeRecord } from '../reports/team-payouts/unpaid-time.ts';
import { meRecord } from './me.route.ts';
import type { OperationDoc } from '../api/operation-doc.ts';

const LIST_ERRORS = {
  422: ['validation_failed', 'invalid_cursor'],
  503: ['read_model_unavailable'],
};
const WRITE_ERRORS = {
  400: ['malformed_json'],
  413: ['payload_too_large'],
  415: ['unsupported_media_type'],
  422: ['validation_failed'],
  // Saved, but not shown by the read model within the sync's wait (docs/decisions.md).
  503: ['read_model_unavailable'],
};
const CREATE_ERRORS = {
  ...WRITE_ERRORS,
  409: ['idempotency_in_progress'],
  422: ['validation_failed', 'idempotency_key_reused'],
};

/** Every operation the server answers; the OpenAPI document and the docs page come from it. */
export const OPERATIONS: OperationDoc[] = [
  {
    method: 'get',
    path: '/me',
    summary: 'Verify the token: workspace, role, plan and scopes',
    access: 'any valid token',
    success: { status: 200, schema: singleResponse(meRecord) },
    errors: {},
  },
  {
    method: 'get',
    path: '/clients',
    summary: 'List clients',
    access: 'Manager, Admin, Owner; read scope',
    query: clientListQuery,
    success: { status: 200, schema: listResponse(clientRecord) },
    errors: LIST_ERRORS,
  },
  {
    method: 'post',
    path: '/clients',
    summary: 'Create a client',
    access: 'Manager, Admin, Owner; write scope',
    body: clientInput,
    idempotencyKey: 'optional',
    success: { status: 201, schema: singleResponse(clientRecord) },
    errors: CREATE_ERRORS,
  },
  {
    method: 'patch',
    path: '/clients/{id}',
    summary: 'Update a client',
    access: 'Manager, Admin, Owner; write scope',
    pathId: true,
    body: clientInput,
    success: { status: 200, schema: singleResponse(clientRecord) },
    errors: { ...WRITE_ERRORS, 404: ['not_found'] },
  },
  {
    method: 'get',
    path: '/invoices',
    summary: 'List invoices',
    access: 'Manager, Admin, Owner; read scope',
    query: invoiceListQuery,
    success: { status: 200, schema: listResponse(invoiceRecord) },
    errors: LIST_ERRORS,
  },
  {
    method: 'get',
    path: '/invoices/{id}',
    summary: 'Get one invoice',
    access: 'Manager, Admin, Owner; read scope',
    pathId: true,
    success: { status: 200, schema: singleResponse(invoiceRecord) },
    errors: { 404: ['not_found'], 503: ['read_model_unavailable'] },
  },
  {
    method: 'get',
    path: '/projects',
    summary: 'List projects (Members: the projects granted to them, without rate fields)',
    access: 'any role; read scope',
    query: projectListQuery,
    success: { status: 200, schema: listResponse(projectRecord) },
    errors: LIST_ERRORS,
  },
  {
    method: 'post',
    path: '/expenses',
    summary: 'Create an expense (its currency is the client’s)',
    access: 'Manager, Admin, Owner; write scope',
    body: expenseCreateInput,
    idempotencyKey: 'required',
    success: { status: 201, schema: singleResponse(expenseRecord) },
    errors: { ...CREATE_ERRORS, 400: ['malformed_json', 'idempotency_key_required'] },
  },
  {
    method: 'patch',
    path: '/expenses/{id}',
    summary: 'Update an expense',
    access: 'Manager, Admin, Owner; write scope',
    pathId: true,
    body: expenseUpdateInput,
    success: { status: 200, schema: singleResponse(expenseRecord) },
    errors: { ...WRITE_ERRORS, 404: ['not_found'] },
  },
  {
    method: 'post',
    path: '/tasks',
    summary: 'Create a task (Members: self-assigned, on granted projects)',
    access: 'any role; write scope',
    body: taskCreateInput,
    idempotencyKey: 'required',
    success: { status: 201, schema: singleResponse(taskRecord) },
    errors: { ...CREATE_ERRORS, 400: ['malformed_json', 'idempotency_key_required'] },
  },
  {
    method: 'patch',
    path: '/tasks/{id}',
    summary: 'Update a task (Members: tasks assigned to them)',
    access: 'any role; write scope',
    pathId: true,
    body: taskUpdateInput,
    success: { status: 200, schema: singleResponse(taskRecord) },
    errors: { ...WRITE_ERRORS, 404: ['not_found'] },
  },
  {
    method: 'delete',
    path: '/tasks/{id}',
    summary: 'Archive a task (sets deletedAt; repeating answers the same)',
    access: 'Manager, Admin, Owner; write scope',
    pathId: true,
    success: { status: 200, schema: singleResponse(taskRecord) },
    errors: { 404: ['not_found'] },
  },
  {
    method: 'patch',
    path: '/time-entries/{id}',
    summary:
      'Update a time entry: its length from durationSeconds, duration (1h30m, 1:30, 1.5h...) or startTime+endTime',
    access:
      'any role for own entries; Owner and Admin for a teammate’s (userId moves it); write scope',
    pathId: true,
    body: timeEntryUpdateInput,
    success: { status: 200, schema: singleResponse(timeEntryRecord) },
    errors: {
      ...WRITE_ERRORS,
      404: ['not_found'],
      409: ['entry_locked'],
      422: ['validation_failed', 'duration_conflict'],
    },
  },
  ...teamPayoutReads(),
  profitabilityOperation,
  exportOperation,
  {
    method: 'get',
    path: '/team-payouts/summary',
    summary: 'Team payout summary per currency',
    access: 'Owner, Admin; read scope; Agency plan',
    query: z.object({ currency: z.string().optional() }),
    success: { status: 200, schema: singleResponse(payoutSummarySchema) },
    errors: { 422: ['validation_failed', 'invalid_query'], 503: ['read_model_unavailable'] },
  },
];

/** The read-only team-payout lists and records (decisions 7: strict queries). */
function teamPayoutReads(): OperationDoc[] {
  const strict = {
    422: ['validation_failed', 'invalid_query', 'invalid_cursor'],
    503: ['read_model_unavailable'],
  };
  const one = { 404: ['not_found'], 422: ['invalid_query'], 503: ['read_model_unavailable'] };
  const finalized = 'Owner, Admin; read scope; Studio or Agency (drafts on Agency only)';
  const agency = 'Owner, Admin; read scope; Agency plan';
  return [
    {
      method: 'get',
      path: '/team-payouts/bills',
      summary: 'List team bills with their figures, lines and payments',
      access: finalized,
      query: billListQuery,
      success: { status: 200, schema: listResponse(billRecord) },
      errors: { ...strict, 402: ['forbidden_plan'] },
    },
    {
      method: 'get',
      path: '/team-payouts/bills/{id}',
      summary: 'Get a team bill',
      access: finalized,
      pathId: true,
      success: { status: 200, schema: singleResponse(billRecord) },
      errors: one,
    },
    {
      method: 'get',
      path: '/team-payouts/payees',
      summary: 'List payees with rates and credits',
      access: agency,
      query: payeeListQuery,
      success: { status: 200, schema: listResponse(payeeRecord) },
      errors: strict,
    },
    {
      method: 'get',
      path: '/team-payouts/payees/{id}',
      summary: 'Get a payee',
      access: agency,
      pathId: true,
      success: { status: 200, schema: singleResponse(payeeRecord) },
      errors: one,
    },
    {
      method: 'get',
      path: '/team-payouts/payments',
      summary: 'List team payments with allocations',
      access: finalized,
      query: paymentListQuery,
      success: { status: 200, schema: listResponse(paymentRecord) },
      errors: strict,
    },
    {
      method: 'get',
      path: '/team-payouts/payments/{id}',
      summary: 'Get a team payment',
      access: finalized,
      pathId: true,
      success: { status: 200, schema: singleResponse(paymentRecord) },
      errors: one,
    },
    {
      method: 'get',
      path: '/team-payouts/unpaid-time',
      summary: 'List unpaid time (scope=all adds non-billable work)',
      access: agency,
      query: unpaidTimeQuery,
      success: { status: 200, schema: listResponse(unpaidTimeRecord) },
      errors: strict,
    },
  ];
}

/** Later issues add their operations here. */
export function addOperations(operations: OperationDoc[]): void {
  OPERATIONS.push(...operations);
}

const COMMON_ERRORS: Record<number, string[]> = {
  401: ['unauthenticated'],
  402: ['forbidden_plan'],
  403: ['forbidden_scope'],
  429: ['rate_limited'],
  500: ['internal_error'],
};

const errorEnvelope = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    fields: z.record(z.string(), z.string()).optional(),
    requiredPlan: z.string().optional(),
    feature: z.string().optional(),
    requestId: z.string(),
  }),
});

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  return rest;
};

function parameters(operation: OperationDoc): object[] {
  const list: object[] = [];
  if (operation.pathId)
    list.push({
      name: 'id',
      in: 'path',
      required: true,
      schema: { type: 'string', format: 'uuid' },
    });
  for (const [name, schema] of Object.entries(operation.pathParameters ?? {}))
    list.push({ name, in: 'path', required: true, schema });
  if (operation.query && operation.query instanceof z.ZodObject) {
    const shape: Record<string, z.ZodType> = operation.query.shape;
    for (const [name, field] of Object.entries(shape)) {
      const schema = jsonSchema(field, 'input');
      const repeated = JSON.stringify(schema).includes('"array"');
      list.push({
        name,
        in: 'query',
        required: !field.safeParse(undefined).success,
        schema,
        ...(repeated ? { style: 'form', explode: true } : {}),
      });
    }
  }
  if (operation.idempotencyKey)
    list.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: operation.idempotencyKey === 'required',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  return list;
}

/** The OpenAPI 3.1 document of the API, generated from the routes' zod schemas. */
export function openApiDocument(): object {
  const paths: Record<string, Record<string, object>> = {};
  for (const operation of OPERATIONS) {
    const responses: Record<string, object> = {
      [operation.success.status]: {
        description: operation.success.status === 201 ? 'Created' : 'OK',
        content: operation.success.content ?? {
          'application/json': { schema: jsonSchema(operation.success.schema, 'output') },
        },
      },
    };
    const errors = { ...COMMON_ERRORS, ...operation.errors };
    for (const [status, codes] of Object.entries(errors)) {
      responses[status] = {
        description: `Error: ${codes.join(', ')}`,
        content: { 'application/json': { schema: jsonSchema(errorEnvelope, 'output') } },
      };
    }
    (paths[operation.path] ??= {})[operation.method] = {
      summary: operation.summary,
      description: `Who may call: ${operation.access}.`,
      operationId: `${operation.method}${operation.path.replace(/[{}]/g, '').replace(/[/-](\w)/g, (_, c: string) => c.toUpperCase())}`,
      parameters: parameters(operation),
      ...(operation.body
        ? {
            requestBody: {
              required: true,
              content: { 'application/json': { schema: jsonSchema(operation.body, 'input') } },
            },
          }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Ledgerline API',
      version: '1',
      description:
        'Time tracking, invoicing and team payouts. Money is always a decimal string; every list pages with an opaque cursor.',
    },
    servers: [{ url: '/api/v1' }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'tt_<env>_<prefix12>_<secret32>' },
      },
    },
    paths,
  };
}

const escape = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** A readable, self-contained page of the same document (no scripts, no CDN). */
export function docsPage(document: ReturnType<typeof openApiDocument>): string {
  const doc = document as { paths: Record<string, Record<string, Record<string, unknown>>> };
  const sections = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const params = (
        op.parameters as { name: string; in: string; required: boolean; schema: unknown }[]
      )
        .map(
          (p) =>
            `<tr><td><code>${escape(p.name)}</code></td><td>${p.in}</td><td>${p.required ? 'yes' : ''}</td><td><code>${escape(JSON.stringify(p.schema))}</code></td></tr>`,
        )
        .join('');
      const body = op.requestBody
        ? `<h4>Body</h4><pre>${escape(JSON.stringify((op.requestBody as { content: { 'application/json': { schema: unknown } } }).content['application/json'].schema, null, 2))}</pre>`
        : '';
      const responses = Object.entries(op.responses as Record<string, { description: string }>)
        .map(([status, r]) => `<li><b>${status}</b> ${escape(r.description)}</li>`)
        .join('');
      return `<section><h3><span class="m">${method.toUpperCase()}</span> /api/v1${escape(path)}</h3>
<p>${escape(String(op.summary))}. ${escape(String(op.description))}</p>
${params ? `<table><tr><th>Parameter</th><th>In</th><th>Required</th><th>Schema</th></tr>${params}</table>` : ''}
${body}<h4>Responses</h4><ul>${responses}</ul></section>`;
    }),
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Ledgerline API v1</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}
section{border-top:1px solid #ddd;padding:.5rem 0}.m{background:#234;color:#fff;padding:0 .4rem;border-radius:3px}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.2rem .4rem;text-align:left;vertical-align:top}
pre{background:#f6f6f6;padding:.5rem;overflow:auto;max-height:20rem}</style></head><body>
<h1>Ledgerline API v1</h1><p>Every request carries <code>Authorization: Bearer &lt;token&gt;</code>. Money is a decimal string. Machine-readable: <a href="/api/v1/openapi.json">openapi.json</a>.</p>
${sections.join('\n')}</body></html>`;
}

/** GET /api/v1/openapi.json and GET /api/v1/docs: public, no token needed. */
export function registerOpenApiRoutes(app: FastifyInstance): void {
  app.get('/api/v1/openapi.json', async () => openApiDocument());
  app.get('/api/v1/docs', async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(docsPage(openApiDocument())),
  );
}
