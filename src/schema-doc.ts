import { z } from 'zod';

// How a schema reads in the OpenAPI document, where its zod form alone would say too little.
// Query values arrive as text and pass through `once` and `many` (string pipes), and JSON
// numbers in bodies arrive as JsonNumber instances (lossless parsing): zod would describe the
// first as a bare string and the second as `{}`. Such a schema is given its meaning here
// (`limit` an integer 1..200, `defaultRate` a decimal string or number), and the document's
// generation asks `documentedOverride` for it; validation is not changed by it.

type JsonSchema = Record<string, unknown>;

const DOCUMENTED = new WeakMap<object, () => JsonSchema>();

/** Documents `schema` as `json` (or as what `json()` returns when the document is built). */
export function documentAs<T extends z.ZodType>(
  schema: T,
  json: JsonSchema | (() => JsonSchema),
): T {
  DOCUMENTED.set(schema, typeof json === 'function' ? json : () => json);
  return schema;
}

/**
 * The `override` of zod's JSON Schema conversion for the document: a schema given a form with
 * `documentAs` (or a refined copy of one) takes it whole.
 */
export function documentedOverride(ctx: { zodSchema: unknown; jsonSchema: JsonSchema }): void {
  const documented = documentedForm(ctx.zodSchema as Refinable);
  if (documented) {
    for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
    Object.assign(ctx.jsonSchema, documented());
  }
}

/** A zod schema; a refined copy (`.refine()`) names the schema it refines as its parent. */
interface Refinable {
  _zod: { parent?: Refinable };
}

/** The documented form of `schema`, or of the schema it is a refined copy of. */
function documentedForm(schema: Refinable): (() => JsonSchema) | undefined {
  for (let s: Refinable | undefined = schema; s !== undefined; s = s._zod.parent) {
    const documented = DOCUMENTED.get(s);
    if (documented) return documented;
  }
  return undefined;
}

/** The JSON Schema a value must meet on its way in, as the document shows it. */
export function inputJsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _drop, ...json } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override: documentedOverride,
  }) as JsonSchema;
  return json;
}

/** The form of a decimal with at most `maxScale` decimals, as `decimalTextProblem` takes it. */
export const decimalPattern = (maxScale: number): string => `^-?\\d+(\\.\\d{1,${maxScale}})?$`;
