import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { Entity } from '../../src/entities/entity.ts';
import { billLineEntity } from '../../src/entities/bill-line.entity.ts';
import { billEntity } from '../../src/entities/bill.entity.ts';
import { clientEntity } from '../../src/entities/client.entity.ts';
import { expenseEntity } from '../../src/entities/expense.entity.ts';
import { invoiceLineEntity } from '../../src/entities/invoice-line.entity.ts';
import { invoiceEntity } from '../../src/entities/invoice.entity.ts';
import { payeeCreditEntity, payeeEntity } from '../../src/entities/payee.entity.ts';
import { paymentEntity } from '../../src/entities/payment.entity.ts';
import { projectEntity } from '../../src/entities/project.entity.ts';
import { taskEntity } from '../../src/entities/task.entity.ts';
import { timeEntryEntity } from '../../src/entities/time-entry.entity.ts';
import { userEntity } from '../../src/entities/user.entity.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { smallSnapshot } from '../support/small-snapshot.ts';
import {
  ALSO,
  largestJson,
  largestText,
  storeTextColumns,
  storeTextLimits,
  type TextLimit,
} from '../support/text-limits.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is checked by value
type Doc = Record<string, any>;

/** The entity whose snapshot records fill each table. */
const ENTITIES: Record<string, Entity> = {
  users: userEntity,
  clients: clientEntity,
  projects: projectEntity,
  tasks: taskEntity,
  invoices: invoiceEntity,
  time_entries: timeEntryEntity,
  expenses: expenseEntity,
  invoice_lines: invoiceLineEntity,
  payees: payeeEntity,
  payee_credits: payeeCreditEntity,
  team_bills: billEntity,
  team_bill_lines: billLineEntity,
  team_payments: paymentEntity,
};

/** A write body of each table the API writes: path, method, table. */
const WRITES = [
  ['/clients', 'post', 'clients'],
  ['/tasks', 'post', 'tasks'],
  ['/time-entries/{id}', 'patch', 'time_entries'],
  ['/expenses', 'post', 'expenses'],
] as const;

const snakeCase = (name: string) => name.replace(/[A-Z0-9]+/g, (m) => `_${m.toLowerCase()}`);

describe('text limits: one number per column, at the edge and in the store', () => {
  let h: Harness;
  let limits: Map<string, TextLimit>;
  beforeAll(async () => {
    h = await createHarness();
    await h.importObject(smallSnapshot());
    limits = await storeTextLimits(h.pool);
  });
  afterAll(() => h.close());

  it('bounds every text, text array and JSON column of the synced tables', async () => {
    const { columns, checks } = await storeTextColumns(h.pool);
    expect(columns.length).toBeGreaterThan(50);
    const unbounded = columns.filter(({ table, column }) => {
      if (limits.has(`${table}.${column}`)) return false;
      // An enumeration or a fixed pattern bounds it as well (a status, a currency code).
      return !checks.some(
        (c) =>
          c.startsWith(`${table}: `) &&
          (c.includes(`(${column} = ANY (ARRAY[`) || c.includes(`(${column} ~ '`)),
      );
    });
    expect(unbounded.map((c) => `${c.table}.${c.column}`)).toEqual([]);
  });

  it('refuses in the store, written by SQL, one character past each limit', async () => {
    const client = await h.pool.connect();
    const refused: string[] = [];
    try {
      await client.query('BEGIN');
      for (const { table, column, kind, max, items } of limits.values()) {
        const over =
          kind === 'array'
            ? [[largestText(max + 1, 'x')], Array<string>(items! + 1).fill('x')]
            : kind === 'json'
              ? [`{"v": "${'x'.repeat(max)}"}`]
              : [largestText(max + 1, 'x')];
        const fits = kind === 'json' ? largestJson(max, 'x') : kind === 'array' ? [] : 'x';
        const cast = kind === 'array' ? '::text[]' : kind === 'json' ? '::jsonb' : '';
        const write = (value: unknown) =>
          client.query(
            `UPDATE ${table} SET ${column} = $1${cast}${ALSO[`${table}.${column}`] ?? ''}
             WHERE ctid = (SELECT ctid FROM ${table} LIMIT 1)`,
            [value],
          );
        for (const value of over) {
          await client.query('SAVEPOINT s');
          const error = await write(value).then(
            () => undefined,
            (e: unknown) => e as { code?: string },
          );
          await client.query('ROLLBACK TO SAVEPOINT s');
          if (error?.code === '23514') refused.push(`${table}.${column}`);
        }
        await client.query('SAVEPOINT s');
        const fitted = await write(fits).then(
          () => true,
          () => false,
        );
        await client.query('ROLLBACK TO SAVEPOINT s');
        if (kind !== 'text' || column !== 'custom_category')
          expect(fitted, `${table}.${column}`).toBe(true);
      }
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
    const expected = [...limits.values()].flatMap((l) =>
      Array<string>(l.kind === 'array' ? 2 : 1).fill(`${l.table}.${l.column}`),
    );
    expect(refused).toEqual(expected);
  });

  it('takes in a snapshot the longest text the store holds, and not one character more', () => {
    let compared = 0;
    for (const [table, entity] of Object.entries(ENTITIES)) {
      const shape = entity.snapshot.shape as Record<string, z.ZodType>;
      for (const field of entity.snapshot.columns) {
        const limit = limits.get(`${table}.${field.column}`);
        const schema = shape[field.name];
        if (!limit || !schema) continue;
        const at = `${table}.${field.column}`;
        if (limit.kind === 'array') {
          const item = 'x'.repeat(limit.max);
          expect(schema.safeParse(Array(limit.items).fill(item)).success, at).toBe(true);
          expect(schema.safeParse(Array(limit.items! + 1).fill('x')).success, at).toBe(false);
          expect(schema.safeParse([`${item}x`]).success, at).toBe(false);
        } else if (limit.kind === 'json') {
          // The compact form, at most half the printed form's bound (SNAPSHOT_JSON_MAX).
          const object = (n: number) => ({ v: 'x'.repeat(n - '{"v":""}'.length) });
          expect(schema.safeParse(object(limit.max / 2)).success, at).toBe(true);
          expect(schema.safeParse(object(limit.max / 2 + 1)).success, at).toBe(false);
        } else {
          expect(schema.safeParse('x'.repeat(limit.max)).success, at).toBe(true);
          expect(schema.safeParse('x'.repeat(limit.max + 1)).success, at).toBe(false);
        }
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(40);
  });

  it('takes in a write body the longest text the store holds (its documented maxLength)', async () => {
    const doc = (await h.app.inject({ url: '/api/v1/openapi.json' })).json<Doc>();
    const resolve = (schema: Doc): Doc =>
      typeof schema.$ref === 'string'
        ? resolve(doc.components.schemas[schema.$ref.split('/').pop()!] as Doc)
        : schema;
    const maxOf = (schema: Doc, key: 'maxLength' | 'maxItems'): number | undefined =>
      (schema[key] as number | undefined) ??
      ((schema.anyOf ?? schema.oneOf ?? []) as Doc[])
        .map((s) => maxOf(resolve(s), key))
        .find((n) => n !== undefined);
    let compared = 0;
    for (const [path, method, table] of WRITES) {
      const body = resolve(
        doc.paths[path][method].requestBody.content['application/json'].schema as Doc,
      );
      for (const [name, property] of Object.entries(body.properties as Doc)) {
        const limit = limits.get(`${table}.${snakeCase(name)}`);
        if (!limit) continue;
        const schema = resolve(property as Doc);
        const at = `${method} ${path} ${name}`;
        if (limit.kind === 'array') {
          expect(maxOf(schema, 'maxItems'), at).toBe(limit.items);
          expect(maxOf(resolve(schema.items as Doc), 'maxLength'), at).toBe(limit.max);
        } else {
          expect(maxOf(schema, 'maxLength'), at).toBe(limit.max);
        }
        compared++;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(20);
  });
});
