import { constants, createWriteStream } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { checkExportInput, resolveExportRequest, runExport } from '../exports/export-run.ts';
import { EXPORT_REPORT_NAMES } from '../exports/export-reports.ts';
import { MANIFEST_FILE, verifyManifest } from '../exports/manifest.ts';
import { exportSnapshot } from '../snapshot/export.ts';
import { generateWorkspace } from '../snapshot/generate.ts';
import { importSnapshot, SnapshotImportError, type ImportIssue } from '../snapshot/import.ts';
import { readSnapshot } from '../snapshot/read-snapshot.ts';
import { uuid } from '../snapshot/records.ts';
import { openRuntime, openStore } from './runtime.ts';
import type { Scope, TokenEnv } from '../store/schema.ts';
import { createToken, listTokens, revokeToken } from '../tokens/token.repository.ts';
import { info, progressLine, UserError } from './output.ts';
import { serve, syncNow } from './serve.ts';

const USAGE = `Usage: npm run cli -- <command>

  import <file.json|file.ndjson> [--replace]   load a workspace snapshot (validated first; a bad file writes nothing)
  export <workspaceId> <file.json|file.ndjson> write a workspace snapshot
  generate --time-entries N --seed S --out FILE [--clients N] [--projects N] [--invoices N] [--members N] [--today YYYY-MM-DD]
  tokens create --workspace W --user U [--scopes read,write] [--env live|test]
  tokens list [--workspace W]
  tokens revoke <prefix>
  sync                                         bring the read model up to date and exit
  serve                                        serve the API (and the export schedules of EXPORT_SCHEDULES)
  export-report <report> --workspace W --format csv|parquet|ndjson --out DIR [--from YYYY-MM-DD] [--to YYYY-MM-DD]
                                               sync, then write one export run folder (data file + manifest.json)
      reports: ${EXPORT_REPORT_NAMES.join(', ')}
  verify <manifest.json>                       recompute an export's sizes, SHA-256, rows and money sums

Environment: DATABASE_URL, DATA_DIR (./.data), HOST (127.0.0.1), PORT (3000), TOKEN_ENV (live|test), EXPORT_SCHEDULES`;

type Command = (args: string[], config: Config) => Promise<void>;

const COMMANDS: Record<string, Command> = {
  import: async (args, config) => {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { replace: { type: 'boolean', default: false } },
    });
    const file = one(positionals, 'import needs one file');
    await access(file, constants.R_OK).catch(() => {
      throw new UserError(`Cannot read ${file}`);
    });
    const runtime = await openStore(config);
    const started = Date.now();
    try {
      const result = await importSnapshot(runtime.pool, readSnapshot(file), {
        replace: values.replace,
        onProgress: (n) => info(progressLine('read', n, started)),
      });
      const total = Object.values(result.rows).reduce((a, b) => a + b, 0);
      const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
      const { phases } = result;
      info(
        `${result.replaced ? 'Replaced' : 'Imported'} workspace ${result.workspaceId}: ${total.toLocaleString('en-US')} rows in ${seconds(Date.now() - started)}`,
      );
      info(
        `  load ${seconds(phases.load)} (waiting for COPY ${seconds(phases.loadWaitingForCopy)}), checks ${seconds(phases.checks)}, insert ${seconds(phases.insert)}, indexes ${seconds(phases.indexes)}, commit ${seconds(phases.commit)}`,
      );
    } finally {
      await runtime.close();
    }
  },

  export: async (args, config) => {
    const { positionals } = parseArgs({ args, allowPositionals: true });
    const [workspaceId, file] = positionals;
    if (positionals.length !== 2 || !workspaceId || !file)
      throw new UserError('export needs a workspace id and a file');
    if (!uuid.safeParse(workspaceId).success)
      throw new UserError(`${workspaceId} is not a workspace id (a UUID)`);
    const runtime = await openStore(config);
    try {
      const result = await exportSnapshot(runtime.pool, workspaceId.toLowerCase(), file);
      info(`Exported ${result.records.toLocaleString('en-US')} records to ${file}`);
    } finally {
      await runtime.close();
    }
  },

  generate: async (args) => {
    const { values } = parseArgs({
      args,
      options: {
        'time-entries': { type: 'string' },
        seed: { type: 'string', default: '1' },
        out: { type: 'string' },
        clients: { type: 'string' },
        projects: { type: 'string' },
        invoices: { type: 'string' },
        members: { type: 'string' },
        today: { type: 'string' },
      },
    });
    if (!values.out) throw new UserError('generate needs --out FILE');
    const count = (name: string, value: string | undefined) => {
      if (value === undefined) return undefined;
      if (!/^\d+$/.test(value)) throw new UserError(`--${name} must be a whole number`);
      return Number(value);
    };
    const options = {
      timeEntries: count('time-entries', values['time-entries']) ?? 1000,
      seed: count('seed', values.seed) ?? 1,
      ...optional('clients', count('clients', values.clients)),
      ...optional('projects', count('projects', values.projects)),
      ...optional('invoices', count('invoices', values.invoices)),
      ...optional('members', count('members', values.members)),
      ...optional('today', values.today),
    };
    const out = createWriteStream(values.out);
    const started = Date.now();
    const { counts } = await generateWorkspace(options, out);
    await new Promise<void>((resolve, reject) =>
      out.end((error?: Error | null) => (error ? reject(error) : resolve())),
    );
    info(
      `Generated ${values.out}: ${Object.entries(counts)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  },

  tokens: async (args, config) => {
    const [sub, ...rest] = args;
    const runtime = await openStore(config);
    try {
      if (sub === 'create') {
        const { values } = parseArgs({
          args: rest,
          options: {
            workspace: { type: 'string' },
            user: { type: 'string' },
            scopes: { type: 'string', default: 'read,write' },
            env: { type: 'string' },
          },
        });
        if (!values.workspace || !values.user)
          throw new UserError('tokens create needs --workspace and --user');
        const scopes = values.scopes.split(',').map((s) => s.trim());
        if (scopes.length === 0 || scopes.some((s) => s !== 'read' && s !== 'write'))
          throw new UserError('--scopes takes read, write or read,write');
        const env = (values.env ?? config.tokenEnv) as TokenEnv;
        if (env !== 'live' && env !== 'test') throw new UserError('--env takes live or test');
        for (const [name, id] of [
          ['--workspace', values.workspace],
          ['--user', values.user],
        ] as const) {
          if (!uuid.safeParse(id).success) throw new UserError(`${name} must be a UUID`);
        }
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
      } else if (sub === 'list') {
        const { values } = parseArgs({ args: rest, options: { workspace: { type: 'string' } } });
        const rows = await listTokens(runtime.db, values.workspace);
        process.stdout.write(
          'prefix        env   workspace                             owner (role)                 scopes      created                   last used                 revoked\n',
        );
        for (const t of rows) {
          process.stdout.write(
            `${t.prefix}  ${t.env.padEnd(4)}  ${t.workspaceId}  ${`${t.owner} (${t.role})`.padEnd(27)}  ${t.scopes.join(',').padEnd(10)}  ${t.createdAt.toISOString()}  ${(t.lastUsedAt?.toISOString() ?? '-').padEnd(24)}  ${t.revokedAt?.toISOString() ?? '-'}\n`,
          );
        }
      } else if (sub === 'revoke') {
        const prefix = one(rest, 'tokens revoke needs a token prefix');
        if (!(await revokeToken(runtime.db, prefix)))
          throw new UserError(`No live token has prefix ${prefix}`);
        info(`Revoked ${prefix}`);
      } else {
        throw new UserError('tokens takes create, list or revoke');
      }
    } finally {
      await runtime.close();
    }
  },

  sync: async (_args, config) => {
    const runtime = await openRuntime(config);
    try {
      await syncNow(runtime);
    } finally {
      await runtime.close();
    }
  },

  'export-report': async (args, config) => {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        workspace: { type: 'string' },
        format: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        out: { type: 'string' },
      },
    });
    const report = one(positionals, 'export-report needs one report name');
    if (!values.workspace) throw new UserError('export-report needs --workspace W');
    if (!values.format) throw new UserError('export-report needs --format csv|parquet|ndjson');
    if (!values.out) throw new UserError('export-report needs --out DIR');
    // Checked before the store is opened: a typo answers at once.
    const input = checkExportInput({
      report,
      workspaceId: values.workspace,
      format: values.format,
      from: values.from,
      to: values.to,
    });
    const runtime = await openRuntime(config);
    try {
      await syncNow(runtime);
      const connection = await runtime.readModel.connect();
      const request = await resolveExportRequest(connection, input).finally(() =>
        connection.closeSync(),
      );
      const { folder, manifest } = await runExport(runtime.readModel, request, {
        outDir: values.out,
        log: info,
      });
      info(
        `Exported ${manifest.rows.toLocaleString('en-US')} rows of ${manifest.report} (data as of ${manifest.dataAsOf ?? '-'})`,
      );
      process.stdout.write(`${path.join(folder, MANIFEST_FILE)}\n`);
    } finally {
      await runtime.close();
    }
  },

  verify: async (args) => {
    const { positionals } = parseArgs({ args, allowPositionals: true });
    const manifest = one(positionals, 'verify needs one manifest.json');
    const differences = await verifyManifest(manifest);
    for (const line of differences) process.stdout.write(`${line}\n`);
    if (differences.length > 0)
      throw new UserError(
        `${manifest} does not match its files: ${differences.length} difference${differences.length === 1 ? '' : 's'}`,
      );
    info(`${manifest}: every file, row count and money sum matches`);
  },

  serve: async (_args, config) => {
    const runtime = await openRuntime(config);
    // A server that fails to start must not leave its embedded PostgreSQL running.
    await serve(runtime).catch(async (error: unknown) => {
      await runtime.close().catch(() => undefined);
      throw error;
    });
  },
};

function one(values: string[], message: string): string {
  if (values.length !== 1 || !values[0]) throw new UserError(message);
  return values[0];
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

/** Runs one CLI command; every failure is one or a few lines on stderr and exit code 1. */
export async function runCli(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  const command = name === undefined ? undefined : COMMANDS[name];
  if (!command) {
    info(USAGE);
    return name === undefined || name === 'help' || name === '--help' ? 0 : 1;
  }
  try {
    await command(args, loadConfig());
    return 0;
  } catch (error) {
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
