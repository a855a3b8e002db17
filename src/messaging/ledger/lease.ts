import type { Db } from "../../core/db.ts";

/**
 * LEASES: who may send a pending ledger row. A sender leases rows to a database connection it
 * holds for as long as it sends (the row's lease_pid and lease_backend_start: that connection's
 * backend); a row under another live lease is never taken. A killed sender's connection goes
 * with it, and so do its leases: the rows are free for the next sender, with no timeout to wait
 * out and no transaction held across a send.
 */

export interface LeaseHolder {
  pid: number;
}

/** The connection `db` as a lease holder (its backend pid). */
export async function leaseHolder(db: Db): Promise<LeaseHolder> {
  const { rows } = await db.query<{ pid: number }>("select pg_backend_pid() as pid");
  const row = rows[0];
  if (!row) throw new Error("pg_backend_pid() answered no row");
  return { pid: row.pid };
}

/**
 * The holder's backend start (a reused pid starts later), read in SQL: a JavaScript Date keeps
 * milliseconds, PostgreSQL microseconds, so a start that went through JavaScript would never
 * match its holder again. `param` is the placeholder of the holder's pid.
 */
const holderStart = (param: string): string => `(select a.backend_start from pg_stat_activity a where a.pid = ${param})`;

/** The row aliased `alias` is under no live lease (never leased, released, or its connection is gone). */
export const leaseDead = (alias: string): string => `(${alias}.lease_pid is null or not exists (
  select 1 from pg_stat_activity a where a.pid = ${alias}.lease_pid and a.backend_start = ${alias}.lease_backend_start))`;

/** The row aliased `alias` is leased to the holder whose pid is `param` (and whose connection is live). */
export const leasedTo = (alias: string, param: string): string =>
  `(${alias}.lease_pid = ${param} and ${alias}.lease_backend_start = ${holderStart(param)})`;

/**
 * The values of lease_pid and lease_backend_start that lease a row to the holder whose pid is
 * `param` as it is inserted (null: no holder): a claim that writes its rows leased saves the lease's
 * update of each one.
 */
export const leaseValues = (param: string): string => `${param}::int, ${holderStart(`${param}::int`)}`;

/** The assignments that lease a row to the holder whose pid is `param`. */
export const leaseTo = (param: string): string => `lease_pid = ${param}, lease_backend_start = ${holderStart(param)}`;

/** Ends the holder's leases on the given rows of `table` (what a sender leased and did not mark). */
export async function releaseLeases(db: Db, table: string, ids: readonly string[], holder: LeaseHolder): Promise<void> {
  if (ids.length === 0) return;
  // Not named: planned at each release (one per call), for the table's size now; a kept plan made
  // on a small table read the whole table once it had grown (test/ledger-mark-plan-cache.test.ts).
  await db.query(
    `update ${table} set lease_pid = null, lease_backend_start = null
     where id = any($1::uuid[]) and lease_pid = $2 and lease_backend_start = ${holderStart("$2")}`,
    [ids, holder.pid],
  );
}
