import { describe, expect, it } from 'vitest';
import { currency, defineEntity, json, money, text, uuid } from './entity.ts';

describe('defineEntity', () => {
  it('names a column after its field in snake_case unless it says otherwise', () => {
    const entity = defineEntity('r', {
      id: uuid(),
      orgId: uuid().column('workspace_id'),
      billingLine1: text().nullable(),
    });
    expect(entity.fields.map((f) => f.column)).toEqual(['id', 'workspace_id', 'billing_line1']);
  });

  it('keeps export-only fields out of the API record, in declaration order', () => {
    const entity = defineEntity('l', {
      id: uuid(),
      position: text().only('export'),
      snapshot: json().nullable().only('api'),
    });
    expect(Object.keys(entity.record.shape)).toEqual(['id', 'snapshot']);
    expect(entity.record.safeParse({ id: 'not-a-uuid', snapshot: null }).success).toBe(false);
  });

  it('refuses money whose currency field the entity lacks', () => {
    expect(() => defineEntity('r', { total: money('settlementCurrency') })).toThrow(
      'total: no currency field settlementCurrency',
    );
    expect(() => defineEntity('r', { currency: currency(), total: money() })).not.toThrow();
  });
});
