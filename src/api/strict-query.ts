import { invalidQuery } from './errors.ts';

/**
 * Team-payout endpoints are strict (docs/contract.md, "Team payout queries"): a parameter they do
 * not know, or one given twice, is refused with `invalid_query` naming it, before any value is
 * looked at.
 */
export function strictQuery(query: unknown, allowed: readonly string[]): Record<string, string> {
  // The names are the caller's: objects without a prototype hold `__proto__` as a name like
  // any other (on a plain object, assigning it sets the prototype and no field at all).
  const fields = Object.create(null) as Record<string, string>;
  const values = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    if (!allowed.includes(name)) fields[name] = 'is not a parameter of this endpoint';
    else if (Array.isArray(value)) fields[name] = 'is given more than once';
    else values[name] = String(value);
  }
  if (Object.keys(fields).length > 0) throw invalidQuery(fields);
  return values;
}
