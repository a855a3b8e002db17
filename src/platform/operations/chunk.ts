/** The platform's limit on array arguments (ids, tags) and on `first`. */
export const PLATFORM_ARRAY_LIMIT = 250;

/** Splits `items` into consecutive slices of at most `size` (none for an empty list). */
export function chunk<T>(items: readonly T[], size = PLATFORM_ARRAY_LIMIT): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`chunk size must be a positive integer, got ${size}`);
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

/** Drops repeats, keeping first-seen order: sending an id twice only wastes the platform's budget. */
export function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}
