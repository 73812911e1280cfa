import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli/main.ts';

/** Runs the CLI with stdout and stderr captured. */
async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out.push(String(chunk));
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    err.push(String(chunk));
    return true;
  });
  const code = await runCli(argv);
  vi.restoreAllMocks();
  return { code, stdout: out.join(''), stderr: err.join('') };
}

const COMMANDS = [
  'import',
  'export',
  'generate',
  'tokens',
  'sync',
  'serve',
  'export-report',
  'verify',
  'webhooks',
  'nodes',
  'shard',
];

describe('the command line', () => {
  afterEach(() => vi.restoreAllMocks());

  it('lists every command on --help, and on no command, with exit code 0', async () => {
    for (const argv of [['--help'], []]) {
      const { code, stdout } = await cli(...argv);
      expect(code).toBe(0);
      for (const command of COMMANDS) expect(stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
      expect(stdout).toContain('Environment: DATABASE_URL');
      expect(stdout).toContain(
        'RATE_LIMIT_REQUESTS (100 per window), RATE_LIMIT_WINDOW_SECONDS (5)',
      );
    }
  });

  it.each([
    ...COMMANDS,
    'tokens create',
    'tokens list',
    'tokens revoke',
    'webhooks add',
    'webhooks replay',
  ])('`%s --help` names its options and exits 0', async (command) => {
    const { code, stdout } = await cli(...command.split(' '), '--help');
    expect(code).toBe(0);
    expect(stdout).toContain(`Usage: npm run cli -- ${command}`);
  });

  it.each([
    [['ledger'], "unknown command 'ledger'"],
    [['import'], "missing required argument 'file'"],
    [['verify', 'a.json', 'b.json'], 'too many arguments'],
    [['import', '--bogus', 'f.json'], "unknown option '--bogus'"],
    [['generate'], "required option '--out <file>' not specified"],
    [['generate', '--out', 'x', '--clients', '1,5'], "'1,5' is invalid. must be a whole number"],
    [['tokens', 'create', '--workspace', 'w', '--user', 'u', '--env', 'prod'], 'live, test'],
    [['export', 'not-a-uuid', 'out.json'], 'not-a-uuid is not a workspace id'],
  ])('refuses %j with one clear line, exit code 1 and no stack trace', async (argv, message) => {
    const { code, stderr } = await cli(...argv);
    expect(code).toBe(1);
    expect(stderr).toContain(message);
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});
