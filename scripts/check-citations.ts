/**
 * `npm run check:citations` (part of `npm run check`): every document the code, tests and docs
 * cite is one the repository holds. It fails, naming file:line, on
 *
 * - a citation of the outside documents the rules were first written in: numbered
 *   "decisions 7", "decisions.md section 4", "api-v1", "../shared" or "shared/spec",
 *   "workspace-snapshot.md"; and "STYLE.md" or "perf-anchors" while the repository has none;
 * - a `docs/<name>.md`, or a relative markdown link to a `.md` file, that does not exist;
 * - a section of docs/contract.md cited by name (`docs/contract.md, "Bill amounts"`) that is not
 *   one of its headings.
 *
 * The rules live in docs/contract.md (the contract) and docs/decisions.md (our choices); a
 * comment cites the file and the section. URLs are not citations, and "decisions" without a
 * number is a word.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** What is read: the code, the tests, the benchmarks, the docs (paths from the repository root). */
const ROOTS = ['src', 'web/src', 'test', 'bench', 'docs', 'sql', 'README.md', 'CONTRIBUTING.md'];
const EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.sql', '.md', '.html']);
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', '.data', 'coverage']);

/** The contract, whose headings a citation names. */
export const CONTRACT = 'docs/contract.md';

/** A line allowed to keep an outside citation, and why. */
export interface AllowedLine {
  file: string;
  /** A part of the line, exactly. */
  text: string;
  why: string;
}

const FROZEN = 'an applied migration: src/store/migrate.ts refuses one whose text changed';

/**
 * The lines that may keep an outside citation. Each is listed with its reason; an entry whose
 * line is gone is reported (not failed), so that it can be removed.
 */
export const ALLOWED: readonly AllowedLine[] = [
  { file: 'sql/postgres/0001_initial.sql', text: 'decisions 7 joins entries', why: FROZEN },
  { file: 'sql/postgres/0001_initial.sql', text: 'POSTs (decisions 6)', why: FROZEN },
  { file: 'sql/postgres/0004_idempotency_keys.sql', text: '(decisions 3 and 6)', why: FROZEN },
];

export interface Finding {
  file: string;
  line: number;
  message: string;
}

export interface Result {
  findings: Finding[];
  /** Allowed lines no longer found. */
  stale: AllowedLine[];
}

const OUTSIDE =
  'a document outside the repository: cite docs/contract.md and the section that states the rule instead';

/** Citations of the outside documents, each with what it is. */
const OUTSIDE_PATTERNS: readonly { pattern: RegExp; what: string }[] = [
  { pattern: /\bdecisions\s+[1-9](?!\d)/gi, what: OUTSIDE },
  { pattern: /\bdecisions\.md,?\s+sections?\s+\d/gi, what: OUTSIDE },
  { pattern: /(?<![\w.-])api-v1(?![\w-])/gi, what: OUTSIDE },
  { pattern: /(?:\.\.\/)+shared\b|(?<![\w.-])shared\/spec\b/g, what: OUTSIDE },
  { pattern: /workspace-snapshot\.md/g, what: OUTSIDE },
];

/** `scheme://…`: a URL, never a citation. */
const URL = /\b[a-z][a-z\d+.-]*:\/\/\S+/gi;
/** `docs/<name>.md`, not as the end of a longer path. */
const DOCS_FILE = /(?<![\w./-])docs\/[\w./-]*?[\w-]\.md\b/g;
/** A markdown link, inline or by reference, to a `.md` file. */
const MD_LINK =
  /\]\(\s*([^()\s]+?\.md)(?:#[^()\s]*)?\s*\)|^\s*\[[^\]]+\]:\s*(\S+?\.md)(?:#\S*)?\s*$/g;
/** `contract.md, "A"`, `contract.md](…), "A" and "B"`: the sections named. */
const CONTRACT_SECTIONS = /contract\.md(?:\]\([^)]*\))?,\s*((?:"[^"]+"(?:\s*,\s*|\s+and\s+)?)+)/g;

function filesUnder(root: string, relative: string): string[] {
  const full = path.join(root, relative);
  if (!existsSync(full)) return [];
  if (EXTENSIONS.has(path.extname(relative))) return [relative];
  const files: string[] = [];
  for (const entry of readdirSync(full, { withFileTypes: true })) {
    const child = path.posix.join(relative, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_FOLDERS.has(entry.name)) files.push(...filesUnder(root, child));
    } else if (entry.isFile() && EXTENSIONS.has(path.extname(entry.name))) {
      files.push(child);
    }
  }
  return files;
}

/** The headings of a markdown file (`## Bill amounts` gives "Bill amounts"). */
function headings(text: string): Set<string> {
  const found = new Set<string>();
  for (const line of text.split('\n')) {
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading?.[1] !== undefined) found.add(heading[1]);
  }
  return found;
}

/** Whether `name` (a bare file name such as STYLE.md) exists at the root, in docs/ or beside `file`. */
function holds(root: string, file: string, name: string): boolean {
  return [root, path.join(root, 'docs'), path.join(root, path.dirname(file))].some((dir) =>
    existsSync(dir) ? readdirSync(dir).some((entry) => entry.startsWith(name)) : false,
  );
}

/** Every citation in `root`'s files of a document it does not hold. */
export function checkCitations(root: string, allowed: readonly AllowedLine[] = ALLOWED): Result {
  const findings: Finding[] = [];
  const used = new Set<AllowedLine>();
  const contractPath = path.join(root, CONTRACT);
  const contract = existsSync(contractPath) ? readFileSync(contractPath, 'utf8') : '';
  const sections = headings(contract);
  const files = [...new Set(ROOTS.flatMap((r) => filesUnder(root, r)))].sort();

  for (const file of files) {
    const text = readFileSync(path.join(root, file), 'utf8');
    const isMarkdown = file.endsWith('.md');
    text.split('\n').forEach((raw, i) => {
      const lineNumber = i + 1;
      const line = raw.replace(URL, (url) => ' '.repeat(url.length));
      const report = (message: string) => findings.push({ file, line: lineNumber, message });
      const outside: string[] = [];
      for (const { pattern } of OUTSIDE_PATTERNS) {
        for (const m of line.matchAll(pattern)) outside.push(m[0]);
      }
      if (/STYLE\.md/.test(line) && !holds(root, file, 'STYLE.md')) outside.push('STYLE.md');
      if (/perf-anchors/i.test(line) && !holds(root, file, 'perf-anchors')) {
        outside.push('perf-anchors');
      }
      if (outside.length > 0) {
        const entry = allowed.find((a) => a.file === file && raw.includes(a.text));
        if (entry) used.add(entry);
        else report(`cites ${outside.map((o) => `"${o}"`).join(', ')}, ${OUTSIDE}`);
      }

      // A file named and linked on one line (`[docs/a.md](docs/a.md)`) is reported once.
      const missing = new Set<string>();
      const exists = (target: string) => {
        if (existsSync(target) || missing.has(target)) return true;
        missing.add(target);
        return false;
      };
      for (const m of line.matchAll(DOCS_FILE)) {
        if (!exists(path.join(root, m[0]))) report(`cites ${m[0]}, which does not exist`);
      }
      if (isMarkdown) {
        for (const m of line.matchAll(MD_LINK)) {
          const target = m[1] ?? m[2];
          if (target === undefined || target.startsWith('/')) continue;
          if (!exists(path.join(root, path.dirname(file), target))) {
            report(`links to ${target}, which does not exist`);
          }
        }
      }
      for (const m of line.matchAll(CONTRACT_SECTIONS)) {
        for (const name of (m[1] ?? '').matchAll(/"([^"]+)"/g)) {
          if (name[1] !== undefined && !sections.has(name[1])) {
            report(`cites ${CONTRACT}, "${name[1]}", a section it does not have`);
          }
        }
      }
    });
  }
  const stale = allowed.filter((a) => !used.has(a));
  return { findings, stale };
}

function main(): void {
  const root = path.resolve(import.meta.dirname, '..');
  const { findings, stale } = checkCitations(root);
  for (const entry of stale) {
    console.log(
      `note: scripts/check-citations.ts allows "${entry.text}" in ${entry.file}, no longer there`,
    );
  }
  for (const f of findings) console.error(`${f.file}:${f.line}: ${f.message}`);
  if (findings.length > 0) {
    console.error(`${findings.length} citation(s) of documents the repository does not hold.`);
    process.exitCode = 1;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main();
}
