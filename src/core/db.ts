import type pg from "pg";

/** What an action or task needs of a connection: a pool (autocommit) or a client in a transaction. */
export interface Db {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/** Runs `fn` in one transaction on a client of `pool`; rolls back on any throw. */
export async function withTransaction<T>(pool: pg.Pool, fn: (db: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query("begin");
    const result = await fn(client);
    await client.query("commit");
    return result;
  } catch (error) {
    broken = await rollbackFailed(client);
    throw error;
  } finally {
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
