import { constants, createWriteStream } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ConfigError, loadConfig } from '../config.ts';
import { runningStoreUrl } from '../store/embedded-postgres.ts';
import { dropNodeSlots, listNodeSlots, NodeInUseError } from '../sync/replication/nodes.ts';
import {
  createShardPublication,
  ShardPublicationError,
} from '../sync/replication/shard-publication.ts';
import { checkExportInput, resolveExportRequest, runExport } from '../exports/export-run.ts';
import { EXPORT_REPORT_NAMES } from '../exports/export-reports.ts';
import { MANIFEST_FILE, verifyManifest } from '../exports/manifest.ts';
import { exportSnapshot } from '../snapshot/export.ts';
import { generateWorkspace, type GenerateOptions } from '../snapshot/generate.ts';
import { importSnapshot, SnapshotImportError, type ImportIssue } from '../snapshot/import.ts';
import { readSnapshot } from '../snapshot/read-snapshot.ts';
import { snapshotUuid as uuid } from '../value-schemas.ts';
import { openRuntime, openStore } from './runtime.ts';
import type { Scope, TokenEnv } from '../store/schema.ts';
import { createToken, listTokens, revokeToken } from '../tokens/token.repository.ts';
import { info, UserError } from './output.ts';
import { startProgress } from './progress.ts';
import { serve, syncNow } from './serve.ts';
import { registerWebhookCommands } from './webhooks-command.ts';

const ENVIRONMENT =
  'Environment: DATABASE_URL, DATA_DIR (./.data), HOST (127.0.0.1), PORT (3000), TOKEN_ENV (live|test), RATE_LIMIT_REQUESTS (100 per window), RATE_LIMIT_WINDOW_SECONDS (5), EXPORT_SCHEDULES';

/** A whole number of an option (commander names the option in its error). */
function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
}

/** Opens the store for one command and closes it after, whatever happens. */
async function withStore<T>(run: (runtime: Awaited<ReturnType<typeof openStore>>) => Promise<T>) {
  const runtime = await openStore(loadConfig());
  try {
    return await run(runtime);
  } finally {
    await runtime.close();
  }
}

/** The commands, their arguments and options; `--help` on each says the same. */
function buildProgram(): Command {
  const program = new Command('npm run cli --')
    .description('Ledgerline: import, export, tokens, sync, serve and report exports')
    .addHelpText('after', `\n${ENVIRONMENT}`)
    .exitOverride()
    .showHelpAfterError('(add --help for the commands and their options)')
    .configureOutput({
      writeOut: (text) => process.stdout.write(text),
      writeErr: (text) => process.stderr.write(text),
    });

  program
    .command('import')
    .description('load a workspace snapshot (validated first; a bad file writes nothing)')
    .argument('<file>', 'a .json or .ndjson snapshot')
    .option('--replace', 'replace the workspace if it exists', false)
    .action(async (file: string, options: { replace: boolean }) => {
      await access(file, constants.R_OK).catch(() => {
        throw new UserError(`Cannot read ${file}`);
      });
      await withStore(async (runtime) => {
        const started = Date.now();
        const progress = startProgress('read');
        const result = await importSnapshot(runtime.pool, readSnapshot(file), {
          replace: options.replace,
          onProgress: (n) => progress.update(n),
        }).finally(() => progress.stop());
        const total = Object.values(result.rows).reduce((a, b) => a + b, 0);
        const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
        const { phases } = result;
        info(
          `${result.replaced ? 'Replaced' : 'Imported'} workspace ${result.workspaceId}: ${total.toLocaleString('en-US')} rows in ${seconds(Date.now() - started)}`,
        );
        info(
          `  load ${seconds(phases.load)} (waiting for COPY ${seconds(phases.loadWaitingForCopy)}), checks ${seconds(phases.checks)}, insert ${seconds(phases.insert)}, indexes ${seconds(phases.indexes)}, commit ${seconds(phases.commit)}${result.loadedStraight.length > 0 ? `; loaded straight: ${result.loadedStraight.join(', ')}` : ''}`,
        );
      });
    });

  program
    .command('export')
    .description('write a workspace snapshot')
    .argument('<workspaceId>', 'the workspace (a UUID)')
    .argument('<file>', 'a .json or .ndjson file to write')
    .action(async (workspaceId: string, file: string) => {
      if (!uuid.safeParse(workspaceId).success)
        throw new UserError(`${workspaceId} is not a workspace id (a UUID)`);
      await withStore(async (runtime) => {
        const result = await exportSnapshot(runtime.pool, workspaceId.toLowerCase(), file);
        info(`Exported ${result.records.toLocaleString('en-US')} records to ${file}`);
      });
    });

  program
    .command('generate')
    .description('write a deterministic, realistic agency workspace as NDJSON')
    .requiredOption('--out <file>', 'the NDJSON file to write')
    .option('--time-entries <n>', 'time entries', wholeNumber, 1000)
    .option('--seed <n>', 'the seed (same options, same bytes)', wholeNumber, 1)
    .option('--clients <n>', 'clients', wholeNumber)
    .option('--projects <n>', 'projects', wholeNumber)
    .option('--invoices <n>', 'invoices', wholeNumber)
    .option('--members <n>', 'members', wholeNumber)
    .option('--today <date>', "the generator's today (YYYY-MM-DD)")
    .action(async (values: { out: string } & Omit<GenerateOptions, 'plan'>) => {
      const { out: file, ...options } = values;
      const out = createWriteStream(file);
      const started = Date.now();
      const { counts } = await generateWorkspace(options, out);
      await new Promise<void>((resolve, reject) =>
        out.end((error?: Error | null) => (error ? reject(error) : resolve())),
      );
      info(
        `Generated ${file}: ${Object.entries(counts)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
    });

  const tokens = program.command('tokens').description('create, list or revoke API tokens');
  tokens
    .command('create')
    .description('mint a token for a member and print it once')
    .requiredOption('--workspace <id>', 'the workspace (a UUID)')
    .requiredOption('--user <id>', 'the member (a UUID)')
    .option('--scopes <scopes>', 'read, write or read,write', 'read,write')
    .addOption(
      new Option('--env <env>', 'live or test (default: TOKEN_ENV)').choices(['live', 'test']),
    )
    .action(async (values: { workspace: string; user: string; scopes: string; env?: TokenEnv }) => {
      const config = loadConfig();
      const scopes = values.scopes.split(',').map((s) => s.trim());
      if (scopes.length === 0 || scopes.some((s) => s !== 'read' && s !== 'write'))
        throw new UserError('--scopes takes read, write or read,write');
      const env = values.env ?? config.tokenEnv;
      for (const [name, id] of [
        ['--workspace', values.workspace],
        ['--user', values.user],
      ] as const) {
        if (!uuid.safeParse(id).success) throw new UserError(`${name} must be a UUID`);
      }
      await withStore(async (runtime) => {
        const created = await createToken(runtime.db, {
          workspaceId: values.workspace.toLowerCase(),
          userId: values.user.toLowerCase(),
          scopes: [...new Set(scopes)] as Scope[],
          env,
        }).catch((error: unknown) => {
          throw new UserError(error instanceof Error ? error.message : String(error));
        });
        info('This is the only time the token is shown; store it now.');
        process.stdout.write(`${created.token}\n`);
      });
    });
  tokens
    .command('list')
    .description('prefix, env, owner and role, scopes, created, last used, revoked')
    .option('--workspace <id>', 'only the tokens of this workspace')
    .action(async (values: { workspace?: string }) => {
      await withStore(async (runtime) => {
        const rows = await listTokens(runtime.db, values.workspace);
        process.stdout.write(
          'prefix        env   workspace                             owner (role)                 scopes      created                   last used                 revoked\n',
        );
        for (const t of rows) {
          process.stdout.write(
            `${t.prefix}  ${t.env.padEnd(4)}  ${t.workspaceId}  ${`${t.owner} (${t.role})`.padEnd(27)}  ${t.scopes.join(',').padEnd(10)}  ${t.createdAt.toISOString()}  ${(t.lastUsedAt?.toISOString() ?? '-').padEnd(24)}  ${t.revokedAt?.toISOString() ?? '-'}\n`,
          );
        }
      });
    });
  tokens
    .command('revoke')
    .description('revoke a token')
    .argument('<prefix>', "the token's public prefix")
    .action(async (prefix: string) => {
      await withStore(async (runtime) => {
        if (!(await revokeToken(runtime.db, prefix)))
          throw new UserError(`No live token has prefix ${prefix}`);
        info(`Revoked ${prefix}`);
      });
    });

  registerWebhookCommands(program, withStore);

  const nodes = program
    .command('nodes')
    .description(
      "the read models' replication slots of the store: node, lag, WAL kept, since when idle",
    )
    .action(async () => {
      await withStore(async (runtime) => {
        const slots = await listNodeSlots(runtime.pool);
        process.stdout.write(
          'slot                                 node          active  lag (bytes)   WAL kept (bytes)  wal_status  inactive since\n',
        );
        for (const s of slots)
          process.stdout.write(
            `${s.slot.padEnd(35)}  ${(s.node ?? '-').padEnd(12)}  ${(s.active ? 'yes' : 'no').padEnd(6)}  ${String(s.lagBytes).padStart(11)}  ${String(s.retainedBytes).padStart(16)}  ${(s.walStatus ?? '-').padEnd(10)}  ${s.inactiveSince?.toISOString() ?? '-'}\n`,
          );
      });
    });
  program
    .command('shard')
    .description(
      'create a publication of some workspaces only, for read-model nodes of a shard (PUBLICATION=<name>)',
    )
    .argument('<name>', 'the publication to create')
    .argument('<workspaceIds...>', 'the workspaces it holds')
    .action(async (name: string, workspaceIds: string[]) => {
      await withStore(async (runtime) => {
        const tables = await createShardPublication(runtime.pool, name, workspaceIds).catch(
          (error: unknown) => {
            if (error instanceof ShardPublicationError) throw new UserError(error.message);
            throw error;
          },
        );
        info(
          `Created publication ${name}: ${tables.length} tables, rows of ${workspaceIds.length} workspace${workspaceIds.length === 1 ? '' : 's'}. Start its nodes with PUBLICATION=${name}.`,
        );
      });
    });
  nodes
    .command('drop')
    .description(
      'drop the replication slots of a node gone for good (it rebuilds if it comes back)',
    )
    .argument('<name>', 'the node (NODE_NAME) or one slot')
    .action(async (name: string) => {
      await withStore(async (runtime) => {
        const dropped = await dropNodeSlots(runtime.pool, name).catch((error: unknown) => {
          if (error instanceof NodeInUseError) throw new UserError(error.message);
          throw error;
        });
        if (dropped.length === 0) throw new UserError(`No node or slot is named ${name}`);
        info(`Dropped ${dropped.join(', ')}`);
      });
    });

  program
    .command('store-url')
    .description('print the URL of the embedded store a running server of DATA_DIR holds')
    .action(async () => {
      const config = loadConfig();
      if (config.databaseUrl !== undefined) {
        process.stdout.write(`${config.databaseUrl}\n`);
        return;
      }
      const url = await runningStoreUrl(config.dataDir);
      if (url === undefined)
        throw new UserError(
          `No server is running the embedded store of ${config.dataDir}: start one with npm start`,
        );
      process.stdout.write(`${url}\n`);
    });

  program
    .command('sync')
    .description('bring the read model up to date and exit')
    .action(async () => {
      const runtime = await openRuntime(loadConfig());
      try {
        await syncNow(runtime);
      } finally {
        await runtime.close();
      }
    });

  program
    .command('serve')
    .description('serve the API (and the export schedules of EXPORT_SCHEDULES)')
    .action(async () => {
      const runtime = await openRuntime(loadConfig());
      // A server that fails to start must not leave its embedded PostgreSQL running.
      await serve(runtime).catch(async (error: unknown) => {
        await runtime.close().catch(() => undefined);
        throw error;
      });
    });

  program
    .command('export-report')
    .description('sync, then write one export run folder (data file + manifest.json)')
    .argument('<report>', `one of ${EXPORT_REPORT_NAMES.join(', ')}`)
    .requiredOption('--workspace <id>', 'the workspace (a UUID)')
    .requiredOption('--format <format>', 'csv, parquet or ndjson')
    .requiredOption('--out <dir>', 'the folder the run folder is written into')
    .option('--from <date>', 'first date (YYYY-MM-DD)')
    .option('--to <date>', 'last date (YYYY-MM-DD)')
    .action(
      async (
        report: string,
        values: { workspace: string; format: string; out: string; from?: string; to?: string },
      ) => {
        // Checked before the store is opened: a typo answers at once.
        const input = checkExportInput({
          report,
          workspaceId: values.workspace,
          format: values.format,
          from: values.from,
          to: values.to,
        });
        const runtime = await openRuntime(loadConfig());
        try {
          await syncNow(runtime);
          const connection = await runtime.readModel.connect();
          const request = await resolveExportRequest(connection, input).finally(() =>
            connection.closeSync(),
          );
          // On a terminal a bar; otherwise the run's own log lines say how far it is.
          const bar = process.stderr.isTTY
            ? startProgress(`export ${report}`, { percent: true })
            : undefined;
          const { folder, manifest } = await runExport(runtime.readModel, request, {
            outDir: values.out,
            log: info,
            ...(bar ? { onProgress: (percent: number) => bar.update(percent, 100) } : {}),
          }).finally(() => bar?.stop());
          info(
            `Exported ${manifest.rows.toLocaleString('en-US')} rows of ${manifest.report} (data as of ${manifest.dataAsOf ?? '-'})`,
          );
          process.stdout.write(`${path.join(folder, MANIFEST_FILE)}\n`);
        } finally {
          await runtime.close();
        }
      },
    );

  program
    .command('verify')
    .description("recompute an export's sizes, SHA-256, rows and money sums")
    .argument('<manifest>', 'the manifest.json of a run folder')
    .action(async (manifest: string) => {
      const differences = await verifyManifest(manifest);
      for (const line of differences) process.stdout.write(`${line}\n`);
      if (differences.length > 0)
        throw new UserError(
          `${manifest} does not match its files: ${differences.length} difference${differences.length === 1 ? '' : 's'}`,
        );
      info(`${manifest}: every file, row count and money sum matches`);
    });

  return program;
}

/** Runs one CLI command; every failure is one or a few lines on stderr and exit code 1. */
export async function runCli(argv: string[]): Promise<number> {
  const program = buildProgram();
  if (argv.length === 0 || argv[0] === 'help') {
    program.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    // commander has already written its message (a bad argument or option) or the help.
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof SnapshotImportError) {
      for (const issue of error.issues) info(`  ${describeIssue(issue)}`);
      if (error.total > error.issues.length)
        info(`  ... and ${error.total - error.issues.length} more`);
    }
    // One plain line: configuration, input and environment problems are the user's to fix.
    info(`error: ${error instanceof Error ? error.message : String(error)}`);
    if (process.env.DEBUG && !(error instanceof UserError || error instanceof ConfigError))
      console.error(error);
    return 1;
  }
}

export function describeIssue(issue: ImportIssue): string {
  const where = [issue.entity, issue.id, issue.field].filter(Boolean).join(' ');
  return `${where}: ${issue.message}${issue.line ? ` (line ${issue.line})` : ''}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const code = await runCli(process.argv.slice(2));
  if (code !== 0 || !['serve'].includes(process.argv[2] ?? '')) process.exit(code);
}
