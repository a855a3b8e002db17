import { z } from "zod";

/**
 * What a deep-partial PATCH may carry for a group of type T: every key optional at every level;
 * arrays are replaced whole.
 */
export type DeepPartial<T> = T extends readonly unknown[]
  ? T
  : T extends Record<string, unknown>
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

type AnySchema = z.ZodType;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The schema under its defaults (`.default`, `.prefault`); optional and nullable are kept. */
function withoutDefaults(schema: AnySchema): AnySchema {
  let current: AnySchema = schema;
  while (current instanceof z.ZodDefault || current instanceof z.ZodPrefault) current = current.def.innerType as AnySchema;
  return current;
}

/** The schema under defaults, optional and nullable: what shape a value has when present. */
function core(schema: AnySchema): AnySchema {
  let current: AnySchema = schema;
  while (
    current instanceof z.ZodDefault ||
    current instanceof z.ZodPrefault ||
    current instanceof z.ZodOptional ||
    current instanceof z.ZodNullable
  ) {
    current = current.def.innerType as AnySchema;
  }
  return current;
}

/**
 * The PATCH schema of a group, derived from its full schema: objects become strict objects whose
 * keys are all optional (an unknown key is `<field> is not allowed`), defaults are dropped (an
 * absent key keeps the stored value), records take `null` to remove an entry, and every other
 * schema (leaves, arrays) is kept as it is, so a present value is validated exactly as stored.
 */
export function deepPartialStrict(schema: AnySchema): AnySchema {
  const inner = withoutDefaults(schema);
  if (inner instanceof z.ZodObject) {
    const shape: Record<string, AnySchema> = {};
    const fields: Record<string, AnySchema> = inner.shape;
    for (const [key, child] of Object.entries(fields)) {
      shape[key] = deepPartialStrict(child).optional();
    }
    const partial = z.strictObject(shape);
    return inner.description ? partial.describe(inner.description) : partial;
  }
  if (inner instanceof z.ZodRecord) {
    return z.record(inner.def.keyType, deepPartialStrict(inner.def.valueType as AnySchema).nullable());
  }
  return inner;
}

/**
 * `patch` merged into `base`, guided by the schema: objects merge key by key, records merge entry
 * by entry (`null` removes an entry), anything else (leaves, arrays, `null` for a nullable leaf)
 * replaces. Neither argument is changed.
 */
export function mergeDeep(base: unknown, patch: unknown, schema: AnySchema): unknown {
  if (patch === undefined) return structuredClone(base);
  const shape = core(schema);
  if (shape instanceof z.ZodObject && isPlainObject(patch)) {
    const out: Record<string, unknown> = isPlainObject(base) ? structuredClone(base) : {};
    const fields = shape.shape as Record<string, AnySchema>;
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) continue;
      const child = fields[key];
      out[key] = child ? mergeDeep(out[key], value, child) : structuredClone(value);
    }
    return out;
  }
  if (shape instanceof z.ZodRecord && isPlainObject(patch)) {
    const out: Record<string, unknown> = isPlainObject(base) ? structuredClone(base) : {};
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) continue;
      if (value === null) delete out[key];
      else out[key] = mergeDeep(out[key], value, shape.def.valueType as AnySchema);
    }
    return out;
  }
  return structuredClone(patch);
}

/** Whether `patch` sets the value at `path` (present, not undefined). */
export function sets(patch: unknown, ...path: string[]): boolean {
  let current: unknown = patch;
  for (const key of path) {
    if (!isPlainObject(current)) return false;
    current = current[key];
  }
  return current !== undefined;
}
