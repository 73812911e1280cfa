import type { Command } from 'commander';
import { webhookCreateInput, webhookReplayInput } from '../api/webhooks/webhook.input.ts';
import { webhookRowToRecord } from '../api/webhooks/webhook.record.ts';
import {
  deleteWebhook,
  findWebhook,
  insertWebhook,
  listAttempts,
  listWebhooks,
  replayWebhook,
} from '../api/webhooks/webhook.repository.ts';
import { loadConfig } from '../config.ts';
import { snapshotUuid as uuid } from '../value-schemas.ts';
import { checkTarget } from '../webhooks/target.ts';
import { info, UserError } from './output.ts';
import type { openStore } from './runtime.ts';

type WithStore = <T>(
  run: (runtime: Awaited<ReturnType<typeof openStore>>) => Promise<T>,
) => Promise<T>;

/** The first problem zod found, as one line naming the field. */
function problem(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0]!;
  return `${issue.path.map(String).join('.') || 'input'} ${issue.message}`;
}

function workspaceId(value: string): string {
  if (!uuid.safeParse(value).success) throw new UserError('--workspace must be a UUID');
  return value.toLowerCase();
}

/**
 * `npm run cli -- webhooks add|list|remove|deliveries|replay`: what the /webhooks routes do, for
 * an operator of the store (docs/webhooks.md).
 */
export function registerWebhookCommands(program: Command, withStore: WithStore): void {
  const webhooks = program
    .command('webhooks')
    .description("add, list or remove a workspace's webhook endpoints; their deliveries; replay");
  webhooks
    .command('add')
    .description('add an endpoint and print its signing secret once')
    .requiredOption('--workspace <id>', 'the workspace (a UUID)')
    .argument('<url>', 'where events are sent (http or https)')
    .option('--events <types>', 'event types, comma-separated (default: all of them)')
    .option('--description <text>', 'what the endpoint is for')
    .action(
      async (url: string, values: { workspace: string; events?: string; description?: string }) => {
        const parsed = webhookCreateInput.safeParse({
          url,
          ...(values.events === undefined
            ? {}
            : { events: values.events.split(',').map((e) => e.trim()) }),
          ...(values.description === undefined ? {} : { description: values.description }),
        });
        if (!parsed.success) throw new UserError(problem(parsed.error));
        const check = await checkTarget(url, { allowPrivate: loadConfig().webhookAllowPrivate });
        if (!check.ok) throw new UserError(`url ${check.problem}`);
        await withStore(async (runtime) => {
          const row = await insertWebhook(
            runtime.db,
            workspaceId(values.workspace),
            parsed.data,
          ).catch((error: unknown) => {
            throw new UserError(error instanceof Error ? error.message : String(error));
          });
          info(`Added webhook ${row.id}. This is the only time its secret is shown; store it now.`);
          process.stdout.write(`${row.secret}\n`);
        });
      },
    );
  webhooks
    .command('list')
    .description("a workspace's endpoints: id, status, events, url")
    .requiredOption('--workspace <id>', 'the workspace (a UUID)')
    .action(async (values: { workspace: string }) => {
      await withStore(async (runtime) => {
        const rows = await listWebhooks(
          runtime.db,
          workspaceId(values.workspace),
          10_000,
          undefined,
        );
        process.stdout.write('id                                    status    events  url\n');
        for (const row of rows) {
          const r = webhookRowToRecord(row);
          process.stdout.write(
            `${r.id}  ${r.status.padEnd(8)}  ${String(r.events?.length ?? 'all').padStart(6)}  ${r.url}\n`,
          );
        }
      });
    });
  webhooks
    .command('remove')
    .description('remove an endpoint, with its queued deliveries')
    .requiredOption('--workspace <id>', 'the workspace (a UUID)')
    .argument('<id>', 'the endpoint')
    .action(async (id: string, values: { workspace: string }) => {
      await withStore(async (runtime) => {
        const row = uuid.safeParse(id).success
          ? await findWebhook(runtime.db, workspaceId(values.workspace), id.toLowerCase())
          : undefined;
        if (!row) throw new UserError(`No webhook ${id} in workspace ${values.workspace}`);
        await deleteWebhook(runtime.db, row.id);
        info(`Removed webhook ${row.id}`);
      });
    });
  webhooks
    .command('deliveries')
    .description("an endpoint's latest attempts: time, event, status or error, duration")
    .requiredOption('--workspace <id>', 'the workspace (a UUID)')
    .argument('<id>', 'the endpoint')
    .option('--limit <n>', 'how many', '50')
    .action(async (id: string, values: { workspace: string; limit: string }) => {
      await withStore(async (runtime) => {
        const row = uuid.safeParse(id).success
          ? await findWebhook(runtime.db, workspaceId(values.workspace), id.toLowerCase())
          : undefined;
        if (!row) throw new UserError(`No webhook ${id} in workspace ${values.workspace}`);
        const limit = Number(values.limit);
        if (!Number.isInteger(limit) || limit < 1)
          throw new UserError('--limit must be a whole number');
        const attempts = (await listAttempts(runtime.db, row.id, limit, undefined)).slice(0, limit);
        process.stdout.write(
          'attempted at              event type                 status    ms  event id\n',
        );
        for (const a of attempts)
          process.stdout.write(
            `${a.attempted_at.toISOString()}  ${a.event_type.padEnd(25)}  ${String(a.status_code ?? a.error ?? '-').padEnd(6)}  ${String(a.duration_ms).padStart(5)}  ${a.event_id}\n`,
          );
      });
    });
  webhooks
    .command('replay')
    .description('send every event since a time again, with its original id')
    .requiredOption('--workspace <id>', 'the workspace (a UUID)')
    .requiredOption('--since <time>', 'an ISO 8601 time with its offset, e.g. 2026-12-01T00:00:00Z')
    .argument('<id>', 'the endpoint')
    .action(async (id: string, values: { workspace: string; since: string }) => {
      const parsed = webhookReplayInput.safeParse({ since: values.since });
      if (!parsed.success) throw new UserError(`--since ${parsed.error.issues[0]!.message}`);
      await withStore(async (runtime) => {
        const row = uuid.safeParse(id).success
          ? await findWebhook(runtime.db, workspaceId(values.workspace), id.toLowerCase())
          : undefined;
        if (!row) throw new UserError(`No webhook ${id} in workspace ${values.workspace}`);
        const queued = await replayWebhook(runtime.db, row, parsed.data.since);
        info(`Queued ${queued} event${queued === 1 ? '' : 's'} for webhook ${row.id}`);
      });
    });
}
