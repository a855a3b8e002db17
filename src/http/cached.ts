/**
 * `collect` behind a cache of `ttlMs`: every call within that time of a collection's start shares
 * its answer, including calls made while it still runs, so a flood of callers costs one collection
 * per `ttlMs`. A failed collection is not kept: the next call tries again.
 */
export function cachedFor<T>(ttlMs: number, collect: () => Promise<T>, now: () => number = () => performance.now()): () => Promise<T> {
  if (ttlMs <= 0) return collect;
  let cached: { at: number; value: Promise<T> } | undefined;
  return () => {
    const at = now();
    if (cached && at - cached.at < ttlMs) return cached.value;
    const entry = { at, value: collect() };
    cached = entry;
    entry.value.catch(() => {
      if (cached === entry) cached = undefined;
    });
    return entry.value;
  };
}
