import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkCitations, type AllowedLine } from './check-citations.ts';

const CONTRACT = `# The API contract

## Bill amounts

Subtotal, total.
`;

let root: string;

/** A repository of `files` (path from the root: text) with a contract of two sections. */
function repository(files: Record<string, string>): string {
  root = mkdtempSync(path.join(tmpdir(), 'citations-'));
  for (const [file, text] of Object.entries({ 'docs/contract.md': CONTRACT, ...files })) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

const lines = (text: string[]) => text.join('\n') + '\n';

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('checkCitations', () => {
  it('names file and line of every citation of an outside document', () => {
    const repo = repository({
      'src/a.ts': lines([
        '// Fine: (docs/contract.md, "Bill amounts").',
        '// The figures (decisions 7, "Bill amounts").',
        '/** The length rules (api-v1 "Duration rules"). */',
        '// As ../shared/spec/workspace-snapshot.md says.',
        '-- the value sets of decisions.md section 4',
        '// Formatted as STYLE.md says, measured as perf-anchors.json holds.',
      ]),
      'bench/b.sql': '-- Decisions 9: half away from zero.\n',
    });
    const { findings } = checkCitations(repo, []);
    expect(findings.map((f) => `${f.file}:${f.line}`)).toEqual([
      'bench/b.sql:1',
      'src/a.ts:2',
      'src/a.ts:3',
      'src/a.ts:4',
      'src/a.ts:5',
      'src/a.ts:6',
    ]);
    expect(findings[3]?.message).toMatch(/^cites "\.\.\/shared", "workspace-snapshot\.md", /);
    expect(findings[5]?.message).toMatch(/^cites "STYLE\.md", "perf-anchors", /);
  });

  it('finds docs, links and contract sections that do not exist', () => {
    const repo = repository({
      'README.md': lines(['[Contract](docs/contract.md), [Gone](docs/gone.md#top)']),
      'docs/guide.md': lines([
        'See [the contract](contract.md#bill-amounts) and [the readme](../README.md).',
        'Not here: [old](old-guide.md), nor docs/missing.md.',
        '[ref]: ./also-gone.md',
      ]),
      'test/c.test.ts': lines([
        '// (docs/contract.md, "Bill amounts" and "Bill figures")',
        'describe(\'totals ([contract.md](contract.md), "Bill amounts")\', () => {});',
      ]),
    });
    const found = checkCitations(repo, []).findings.map((f) => `${f.file}:${f.line} ${f.message}`);
    expect(found).toEqual([
      'README.md:1 cites docs/gone.md, which does not exist',
      'docs/guide.md:2 cites docs/missing.md, which does not exist',
      'docs/guide.md:2 links to old-guide.md, which does not exist',
      'docs/guide.md:3 links to ./also-gone.md, which does not exist',
      'test/c.test.ts:1 cites docs/contract.md, "Bill figures", a section it does not have',
    ]);
  });

  it('leaves alone what is not a citation', () => {
    const repo = repository({
      'docs/decisions.md': '# Our decisions where the contract is silent\n',
      'test/fixtures.test.ts': lines([
        "const note = 'Our decisions of 2024, and decisions 2024 too';",
        "const hook = 'https://example.com/api-v1/hooks?from=../shared';",
        "const tag = 'api-v10';",
        '// Choices of our own: docs/decisions.md. Spreadsheets are shared with the team.',
      ]),
      'web/src/d.ts': '// A STYLE.md of its own, beside it.\n',
      'web/src/STYLE.md': '# Style\n',
    });
    expect(checkCitations(repo, []).findings).toEqual([]);
  });

  it('allows the lines it lists, and tells which listed lines are gone', () => {
    const allowed: AllowedLine[] = [
      { file: 'sql/0001.sql', text: '(decisions 6)', why: 'applied' },
      { file: 'sql/0001.sql', text: '(decisions 3)', why: 'applied' },
    ];
    const repo = repository({
      'sql/0001.sql': '-- Idempotent replay (decisions 6).\n-- Other (decisions 5).\n',
    });
    const { findings, stale } = checkCitations(repo, allowed);
    expect(findings.map((f) => `${f.file}:${f.line}`)).toEqual(['sql/0001.sql:2']);
    expect(stale).toEqual([allowed[1]]);
  });
});
