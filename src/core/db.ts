import type pg from "pg";

/** What an action or task needs of a connection: a pool (autocommit) or a client in a transaction. */
export interface Db {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
  /** A named statement: prepared once per connection, so a hot statement is not planned again at every call. */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(config: { name: string; text: string; values?: unknown[] }): Promise<pg.QueryResult<R>>;
}

/** What runs once the transaction of a withTransaction client commits. */
const afterCommit = new WeakMap<object, (() => void)[]>();
/** What runs inside the transaction of a withTransaction client, just before its commit, once per key. */
const beforeCommitHooks = new WeakMap<object, Map<string, () => Promise<unknown>>>();

/** Whether `key` already has work waiting for the commit of `db`'s transaction. */
export function pendingBeforeCommit(db: Db, key: string): boolean {
  return beforeCommitHooks.get(db)?.has(key) ?? false;
}

/**
 * Runs `hook` inside `db`'s transaction just before it commits, once per key however often it is
 * asked for (the first hook of a key is kept); at once when `db` is a pool or a client outside
 * withTransaction. A throw rolls the transaction back.
 */
export async function beforeCommit(db: Db, key: string, hook: () => Promise<unknown>): Promise<void> {
  const hooks = beforeCommitHooks.get(db);
  if (!hooks) {
    await hook();
    return;
  }
  if (!hooks.has(key)) hooks.set(key, hook);
}

/** Runs the hook waiting under `key` now (and not again at the commit): its answer, or undefined when none waits. */
export async function runBeforeCommitNow<T>(db: Db, key: string): Promise<T | undefined> {
  const hooks = beforeCommitHooks.get(db);
  const hook = hooks?.get(key);
  if (!hook) return undefined;
  hooks?.delete(key);
  return (await hook()) as T;
}

/** Runs every waiting hook, including those a hook adds. */
async function runBeforeCommit(db: object): Promise<void> {
  const hooks = beforeCommitHooks.get(db);
  if (!hooks) return;
  for (let next = hooks.entries().next(); !next.done; next = hooks.entries().next()) {
    const [key, hook] = next.value;
    hooks.delete(key);
    await hook();
  }
}

/**
 * Runs `effect` once what `db` wrote is committed: at once for a pool (autocommit) or a client not
 * in withTransaction, after the commit for a withTransaction client, never if it rolls back. For
 * what must not count a write that did not happen (metrics counters).
 */
export function onCommit(db: Db, effect: () => void): void {
  const pending = afterCommit.get(db);
  if (pending) pending.push(effect);
  else runEffects([effect]);
}

/** An effect that throws must not turn a committed transaction into a failure its caller retries. */
function runEffects(effects: readonly (() => void)[]): void {
  for (const effect of effects) {
    try {
      effect();
    } catch {
      // A counter's own fault; the write it counts has happened.
    }
  }
}

/** Runs `fn` in one transaction on a client of `pool`; rolls back on any throw. */
export async function withTransaction<T>(pool: pg.Pool, fn: (db: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  const effects: (() => void)[] = [];
  afterCommit.set(client, effects);
  beforeCommitHooks.set(client, new Map());
  try {
    await client.query("begin");
    const result = await fn(client);
    await runBeforeCommit(client);
    beforeCommitHooks.delete(client);
    await client.query("commit");
    afterCommit.delete(client);
    runEffects(effects);
    return result;
  } catch (error) {
    broken = await rollbackFailed(client);
    throw error;
  } finally {
    afterCommit.delete(client);
    beforeCommitHooks.delete(client);
    client.release(broken);
  }
}

/**
 * Rolls back; answers true when even that failed, so the caller destroys the connection instead
 * of handing a dead or mid-transaction client to the next user of the pool.
 */
export async function rollbackFailed(client: pg.PoolClient): Promise<boolean> {
  try {
    await client.query("rollback");
    return false;
  } catch {
    return true;
  }
}
