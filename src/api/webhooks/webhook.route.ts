import { z } from 'zod';
import { checkTarget } from '../../webhooks/target.ts';
import { OWNER_ADMIN } from '../access.ts';
import { notFound, validationFailed } from '../errors.ts';
import { cursorParam, limitParam } from '../list/list-query.ts';
import {
  idParams,
  readInHandler,
  responses,
  UPDATE_ERRORS,
  type RoutePlugin,
} from '../route-schema.ts';
import type { RouteContext } from '../route-context.ts';
import { singleResponse } from '../schema-parts.ts';
import { runUpdate, runWrite } from '../write.ts';
import { parseBody } from '../write-body.ts';
import { keyedCreate, recordUpdateSchema } from '../write-routes.ts';
import { webhookCreateInput, webhookReplayInput, webhookUpdateInput } from './webhook.input.ts';
import {
  webhookAttemptRecord,
  webhookRecord,
  webhookRowToRecord,
  webhookWithSecret,
} from './webhook.record.ts';
import {
  deleteWebhook,
  findWebhook,
  insertWebhook,
  listAttempts,
  listWebhooks,
  replayWebhook,
  rotateWebhookSecret,
  updateWebhook,
} from './webhook.repository.ts';

/** Owner and Admin tokens with the write scope, for every route (docs/webhooks.md). */
const access = { roles: OWNER_ADMIN, scope: 'write' as const };
const DESCRIPTION = 'Who may call: Owner, Admin; write scope.';
const pageQuery = z.object({ cursor: cursorParam.optional(), limit: limitParam.optional() });
/**
 * A page of a list the store answers: JSON only (the read model's lists also answer Arrow:
 * src/http/arrow-answer.ts).
 */
const pageOf = <T extends z.ZodType>(record: T) =>
  z.object({
    data: z.array(record),
    pagination: z.object({ limit: z.int(), nextCursor: z.string().nullable() }),
  });
const READ_ERRORS = { 404: ['not_found'], 422: ['validation_failed', 'invalid_cursor'] } as const;

/** The URL's host resolved now: 422 naming the field when it may not be a target. */
async function checkedUrl(context: RouteContext, url: string): Promise<string> {
  const check = await checkTarget(url, { allowPrivate: context.webhookAllowPrivate });
  if (!check.ok) throw validationFailed({ url: check.problem });
  return url;
}

/** /webhooks: a workspace's endpoints, their secrets, deliveries and replays. */
const create = keyedCreate({
  summary: 'Add a webhook endpoint (its signing secret is shown in this answer only)',
  description: DESCRIPTION,
  keyRequired: false,
  body: webhookCreateInput,
  record: webhookWithSecret,
});

export const webhookRoutes: RoutePlugin = async (app, { context }) => {
  app.post('/webhooks', { config: { access }, schema: create.schema }, async (request, reply) => {
    const input = request.body;
    const url = await checkedUrl(context, input.url);
    return create.run({ db: context.db, request, reply }, async (trx) => {
      const row = await insertWebhook(trx, request.caller.workspaceId, { ...input, url });
      return { ...webhookRowToRecord(row), secret: row.secret };
    });
  });

  app.get(
    '/webhooks',
    {
      config: { access, fromStore: true },
      schema: {
        summary: "List the workspace's webhook endpoints, oldest first",
        description: DESCRIPTION,
        querystring: pageQuery,
        response: responses({ 200: pageOf(webhookRecord) }, READ_ERRORS),
      },
    },
    async (request) => {
      const caller = request.caller;
      const limit = request.query.limit ?? 50;
      const binding = `webhooks:${caller.workspaceId}:${caller.tokenPrefix}`;
      const after = request.query.cursor
        ? context.cursors.decode(request.query.cursor, binding)
        : undefined;
      const rows = await listWebhooks(
        context.db,
        caller.workspaceId,
        limit,
        after ? { createdAt: after[0]!, id: after[1]! } : undefined,
      );
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        data: page.map((r) => webhookRowToRecord(r)),
        pagination: {
          limit,
          nextCursor:
            rows.length > limit && last
              ? context.cursors.encode(binding, [last.created_key, last.id])
              : null,
        },
      };
    },
  );

  app.get(
    '/webhooks/:id',
    {
      config: { access, fromStore: true },
      schema: {
        summary: 'Get a webhook endpoint, with whether it is failing and since when',
        description: DESCRIPTION,
        params: idParams,
        response: responses({ 200: singleResponse(webhookRecord) }, { 404: ['not_found'] }),
      },
    },
    async (request) => {
      const row = await findWebhook(context.db, request.caller.workspaceId, request.params.id);
      if (!row) throw notFound();
      return { data: webhookRowToRecord(row) };
    },
  );

  app.patch(
    '/webhooks/:id',
    {
      config: { access },
      schema: recordUpdateSchema({
        summary: 'Update a webhook endpoint: url, events, description, enabled',
        description: DESCRIPTION,
        body: webhookUpdateInput,
        record: webhookRecord,
      }),
    },
    async (request) => {
      const caller = request.caller;
      const { id } = request.params;
      return runUpdate(context, request, {
        find: (trx) => findWebhook(trx, caller.workspaceId, id, { forUpdate: true }),
        parse: () => parseBody(webhookUpdateInput, request.body),
        write: async (trx, _endpoint, input) => {
          if (input.url !== undefined) await checkedUrl(context, input.url);
          return { data: webhookRowToRecord(await updateWebhook(trx, id, input)) };
        },
      });
    },
  );

  app.delete(
    '/webhooks/:id',
    {
      config: { access },
      schema: {
        summary: 'Remove a webhook endpoint, with its queued deliveries and their log',
        description: `${DESCRIPTION} Answers the endpoint as it was.`,
        params: idParams,
        response: responses({ 200: singleResponse(webhookRecord) }, { 404: ['not_found'] }),
      },
    },
    async (request) => {
      const caller = request.caller;
      const { id } = request.params;
      return runWrite(context, request, async (trx) => {
        const row = await findWebhook(trx, caller.workspaceId, id, { forUpdate: true });
        if (!row) throw notFound();
        await deleteWebhook(trx, id);
        return { data: webhookRowToRecord(row) };
      });
    },
  );

  app.post(
    '/webhooks/:id/rotate-secret',
    {
      config: { access },
      schema: {
        summary: 'Make a new signing secret; the old one still signs beside it for 24 hours',
        description: DESCRIPTION,
        params: idParams,
        response: responses({ 200: singleResponse(webhookWithSecret) }, { 404: ['not_found'] }),
      },
    },
    async (request) => {
      const caller = request.caller;
      const { id } = request.params;
      return runWrite(context, request, async (trx) => {
        if (!(await findWebhook(trx, caller.workspaceId, id, { forUpdate: true })))
          throw notFound();
        const row = await rotateWebhookSecret(trx, id);
        return { data: { ...webhookRowToRecord(row), secret: row.secret } };
      });
    },
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      config: { access, fromStore: true },
      schema: {
        summary: "The endpoint's delivery attempts, newest first",
        description: DESCRIPTION,
        params: idParams,
        querystring: pageQuery,
        response: responses({ 200: pageOf(webhookAttemptRecord) }, READ_ERRORS),
      },
    },
    async (request) => {
      const caller = request.caller;
      const { id } = request.params;
      if (!(await findWebhook(context.db, caller.workspaceId, id))) throw notFound();
      const limit = request.query.limit ?? 50;
      const binding = `webhook-deliveries:${id}:${caller.tokenPrefix}`;
      const before = request.query.cursor
        ? context.cursors.decode(request.query.cursor, binding)[0]!
        : undefined;
      const rows = await listAttempts(context.db, id, limit, before);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        data: page.map((r) => ({
          eventId: r.event_id,
          eventType: r.event_type,
          attemptedAt: r.attempted_at.toISOString(),
          statusCode: r.status_code,
          error: r.error,
          durationMs: r.duration_ms,
        })),
        pagination: {
          limit,
          nextCursor:
            rows.length > limit && last ? context.cursors.encode(binding, [String(last.id)]) : null,
        },
      };
    },
  );

  app.post(
    '/webhooks/:id/replay',
    {
      config: { access },
      schema: {
        summary: 'Send every event since a time again, with its original id',
        description: DESCRIPTION,
        params: idParams,
        // Read in the handler: the endpoint (404) comes before the body (422).
        body: readInHandler(webhookReplayInput),
        response: responses({ 202: singleResponse(z.object({ queued: z.int() })) }, UPDATE_ERRORS),
      },
    },
    async (request, reply) => {
      const caller = request.caller;
      const { id } = request.params;
      const queued = await context.db.transaction().execute(async (trx) => {
        const endpoint = await findWebhook(trx, caller.workspaceId, id, { forUpdate: true });
        if (!endpoint) throw notFound();
        const { since } = parseBody(webhookReplayInput, request.body);
        return replayWebhook(trx, endpoint, since);
      });
      return reply.status(202).send({ data: { queued } });
    },
  );
};
