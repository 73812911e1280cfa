import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUSES } from '../../src/api/errors.ts';
import type { Body } from '../support/api-request.ts';
import { createHarness, type Harness } from '../support/harness.ts';

/**
 * docs/api.md's table of errors against the code: every code the API can answer (the
 * registry that every error answer takes its code and status from, src/api/errors.ts) and
 * every status and code a route declares in the served document is a row of the table, and
 * the table has no row the code cannot answer.
 */

/** The rows of docs/api.md's table of errors, as `status code`. */
async function documentedErrors(): Promise<string[]> {
  const text = await readFile(new URL('../../docs/api.md', import.meta.url), 'utf8');
  const start = text.indexOf('\n### Error codes\n');
  expect(start, 'docs/api.md has a "### Error codes" section').toBeGreaterThan(0);
  const rows: string[] = [];
  for (const line of text.slice(start).split('\n').slice(2)) {
    if (line.startsWith('#')) break;
    const row = /^\|\s*(\d{3})\s*\|\s*`([a-z_]+)`\s*\|/.exec(line);
    if (row) rows.push(`${row[1]} ${row[2]}`);
  }
  return rows;
}

/** Every error status and code the routes of the served document declare, as `status code`. */
function declaredErrors(document: Body): string[] {
  const pairs = new Set<string>();
  for (const item of Object.values(document.paths as Record<string, Body>))
    for (const operation of Object.values(item))
      for (const [status, response] of Object.entries(operation.responses as Body)) {
        const codes = (response as Body).content?.['application/json']?.schema?.properties?.error
          ?.properties?.code?.enum as string[] | undefined;
        for (const code of codes ?? []) pairs.add(`${status} ${code}`);
      }
  return [...pairs].sort();
}

describe("docs/api.md's table of errors", () => {
  let h: Harness;
  let documented: string[];
  beforeAll(async () => {
    h = await createHarness();
    documented = await documentedErrors();
  });
  afterAll(() => h.close());

  const answered = () =>
    Object.entries(ERROR_STATUSES).map(([code, status]) => `${status} ${code}`);

  it('has a row for every status and code the API can answer', () => {
    expect(answered().length).toBeGreaterThanOrEqual(20);
    expect(answered().filter((pair) => !documented.includes(pair))).toEqual([]);
  });

  it('names the statuses answered before any route runs, and 406', () => {
    for (const status of ['406', '408', '413', '431'])
      expect(
        documented.some((pair) => pair.startsWith(`${status} `)),
        status,
      ).toBe(true);
  });

  it('has no row the API cannot answer, and no row twice', () => {
    expect(documented.filter((pair) => !answered().includes(pair))).toEqual([]);
    expect(new Set(documented).size).toBe(documented.length);
  });

  it('has a row for every status and code a route declares in the served document', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    const declared = declaredErrors(res.json<Body>());
    expect(declared.length).toBeGreaterThan(10);
    expect(declared.filter((pair) => !documented.includes(pair))).toEqual([]);
  });
});
