import { UsageError } from "./errors.ts";


export { isUuid } from "../core/params.ts";

/** Runs node:util parseArgs (or any parsing step), turning its errors into usage errors. */
export function usageErrors<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError((error as Error).message);
  }
}

export function requireOption(value: string | undefined, name: string): string {
  if (value === undefined || value.trim() === "") throw new UsageError(`--${name} is required`);
  return value;
}

/** Exactly the named positionals, in order. */
export function positionals(values: string[], names: string[]): string[] {
  if (values.length < names.length) throw new UsageError(`missing ${names.slice(values.length).join(", ")}`);
  if (values.length > names.length) throw new UsageError(`unexpected argument: ${values[names.length]}`);
  return values;
}

export function positiveInteger(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    throw new UsageError(`--${name} must be a positive integer`);
  }
  return n;
}

export function oneOf<T extends string>(value: string | undefined, name: string, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`--${name} must be one of: ${allowed.join(", ")}`);
  }
  return value as T;
}
