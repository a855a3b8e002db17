/** Tag lists as the platform keeps them: unique ignoring case, trimmed, sorted. */

export const MAX_TAG_LENGTH = 255;

/** The platform accepts "a, b" inside one tag argument as two tags. */
export function splitTags(input: readonly string[] | string): string[] {
  const parts = typeof input === "string" ? [input] : input;
  return parts
    .flatMap((t) => t.split(","))
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
}

export function addTags(current: readonly string[], added: readonly string[]): string[] {
  const seen = new Set(current.map((t) => t.toLowerCase()));
  const next = [...current];
  for (const tag of added) {
    if (seen.has(tag.toLowerCase())) continue;
    seen.add(tag.toLowerCase());
    next.push(tag);
  }
  return next.sort((a, b) => a.localeCompare(b));
}

export function removeTags(current: readonly string[], removed: readonly string[]): string[] {
  const drop = new Set(removed.map((t) => t.toLowerCase()));
  return current.filter((t) => !drop.has(t.toLowerCase()));
}

export function sameTags(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}
