/**
 * What a run wrote to its database: rows (pg_stat_user_tables' inserts, updates, HOT updates and
 * deletes of this database's tables, by table) and WAL records. The rows count is per database,
 * so other databases on a shared server do not count. WAL is the server's, so on a shared server
 * it is attributed with pg_walinspect: the records that touch a block of this database, and the
 * records of the transactions that did (their commits); without the extension the server-wide
 * pg_stat_wal delta is printed, labelled so.
 */
import { setTimeout as delay } from "node:timers/promises";
import type pg from "pg";

interface TableWrites {
  ins: number;
  upd: number;
  hot: number;
  del: number;
}

interface WritesMark {
  tables: Map<string, TableWrites>;
  lsn: string;
  walRecords: number;
}

export interface WritesDelta {
  inserts: number;
  updates: number;
  hot_updates: number;
  deletes: number;
  rows: number;
  by_table: Record<string, TableWrites>;
  wal_records: number;
  wal_bytes: number;
  /** "walinspect": this database's records only; "server": every database's (pg_stat_wal). */
  wal_method: "walinspect" | "server";
  /** With pg_walinspect: the records by resource manager and type ("Btree/INSERT_LEAF"), most first. */
  wal_by_type?: Record<string, number>;
}

async function tableWrites(pool: pg.Pool): Promise<Map<string, TableWrites>> {
  const { rows } = await pool.query<{ name: string } & TableWrites>(
    `select schemaname || '.' || relname as name, n_tup_ins::float8 as ins, n_tup_upd::float8 as upd, n_tup_hot_upd::float8 as hot, n_tup_del::float8 as del
     from pg_stat_user_tables`,
  );
  return new Map(rows.map((r) => [r.name, { ins: r.ins, upd: r.upd, hot: r.hot, del: r.del }]));
}

const total = (tables: Map<string, TableWrites>) => [...tables.values()].reduce((sum, t) => sum + t.ins + t.upd + t.del, 0);

/** Makes pg_walinspect available when it can be (a superuser's database); answers whether it is. */
export async function enableWalInspect(pool: pg.Pool): Promise<boolean> {
  try {
    await pool.query("create extension if not exists pg_walinspect");
    return true;
  } catch {
    return false;
  }
}

export async function markWrites(pool: pg.Pool): Promise<WritesMark> {
  const { rows } = await pool.query<{ lsn: string; records: string }>("select pg_current_wal_lsn()::text as lsn, (select wal_records from pg_stat_wal)::text as records");
  return { tables: await tableWrites(pool), lsn: rows[0]?.lsn ?? "0/0", walRecords: Number(rows[0]?.records ?? 0) };
}

/**
 * The writes since `before`. Table counters reach the statistics when a backend goes idle (at
 * most a second late, or when it exits): read until two reads a second apart agree.
 */
export async function writesSince(pool: pg.Pool, before: WritesMark, walInspect: boolean): Promise<WritesDelta> {
  let tables = await tableWrites(pool);
  for (let i = 0; i < 15; i += 1) {
    await delay(1100);
    const again = await tableWrites(pool);
    const settled = total(again) === total(tables);
    tables = again;
    if (settled) break;
  }
  const by_table: Record<string, TableWrites> = {};
  const sum: TableWrites = { ins: 0, upd: 0, hot: 0, del: 0 };
  for (const [name, now] of tables) {
    const was = before.tables.get(name) ?? { ins: 0, upd: 0, hot: 0, del: 0 };
    const d = { ins: now.ins - was.ins, upd: now.upd - was.upd, hot: now.hot - was.hot, del: now.del - was.del };
    if (d.ins + d.upd + d.del === 0) continue;
    by_table[name] = d;
    sum.ins += d.ins;
    sum.upd += d.upd;
    sum.hot += d.hot;
    sum.del += d.del;
  }
  // A busy shared server may have recycled the run's first WAL segments: then the server's figure.
  const wal = walInspect ? await walOfThisDatabase(pool, before.lsn).catch(() => walOfServer(pool, before)) : await walOfServer(pool, before);
  return { inserts: sum.ins, updates: sum.upd, hot_updates: sum.hot, deletes: sum.del, rows: sum.ins + sum.upd + sum.del, by_table, ...wal };
}

async function walOfThisDatabase(pool: pg.Pool, from: string): Promise<Pick<WritesDelta, "wal_records" | "wal_bytes" | "wal_method" | "wal_by_type">> {
  // A block reference reads "rel <tablespace>/<database>/<relfilenode> ..."; a commit record has
  // no block but the transaction's xid, which this database's block records carry too.
  const { rows } = await pool.query<{ kind: string; records: string; bytes: string }>(
    `with r as (
       select xid, record_length, resource_manager || '/' || split_part(record_type, ' ', 1) as kind,
              coalesce(block_ref, '') like '%/' || (select oid from pg_database where datname = current_database()) || '/%' as ours
       from pg_get_wal_records_info($1::pg_lsn, pg_current_wal_flush_lsn())
     ), xids as (select distinct xid::text as xid from r where ours and xid::text <> '0')
     select kind, count(*)::text as records, coalesce(sum(record_length), 0)::text as bytes
     from r where ours or xid::text in (select xid from xids)
     group by kind order by count(*) desc`,
    [from],
  );
  const wal_by_type = Object.fromEntries(rows.map((r) => [r.kind, Number(r.records)]));
  return {
    wal_records: rows.reduce((n, r) => n + Number(r.records), 0),
    wal_bytes: rows.reduce((n, r) => n + Number(r.bytes), 0),
    wal_method: "walinspect",
    wal_by_type,
  };
}

async function walOfServer(pool: pg.Pool, before: WritesMark): Promise<Pick<WritesDelta, "wal_records" | "wal_bytes" | "wal_method">> {
  const { rows } = await pool.query<{ records: string; bytes: string }>(
    "select (select wal_records from pg_stat_wal)::text as records, (pg_current_wal_lsn() - $1::pg_lsn)::text as bytes",
    [before.lsn],
  );
  return { wal_records: Number(rows[0]?.records ?? 0) - before.walRecords, wal_bytes: Number(rows[0]?.bytes ?? 0), wal_method: "server" };
}

/** "4.21 rows (1.00 inserts, 3.21 updates of which 0.10 HOT, 0.00 deletes), 24.1 WAL records (2.9 kB)" per alert. */
export function describePerAlert(d: WritesDelta, alerts: number): string {
  const per = (n: number) => (n / alerts).toFixed(2);
  return (
    `${per(d.rows)} rows (${per(d.inserts)} inserts, ${per(d.updates)} updates of which ${per(d.hot_updates)} HOT, ${per(d.deletes)} deletes), ` +
    `${(d.wal_records / alerts).toFixed(1)} WAL records (${(d.wal_bytes / alerts / 1000).toFixed(2)} kB)${d.wal_method === "server" ? " server-wide (no pg_walinspect: other databases' WAL included)" : ""} per alert`
  );
}

/** The WAL records by kind, most first: "Btree/INSERT_LEAF 14.2; Heap/INSERT 3.0". */
export function describeWal(d: WritesDelta, alerts: number): string {
  return Object.entries(d.wal_by_type ?? {})
    .filter(([, n]) => n / alerts >= 0.05)
    .map(([kind, n]) => `${kind} ${(n / alerts).toFixed(2)}`)
    .join("; ");
}

/** The tables written, most rows per alert first: "bis_ledger 2.00 (1.00 ins, 1.00 upd)". */
export function describeTables(d: WritesDelta, alerts: number): string {
  return Object.entries(d.by_table)
    .sort(([, a], [, b]) => b.ins + b.upd + b.del - (a.ins + a.upd + a.del))
    .map(([name, t]) => `${name.replace(/^public\./, "")} ${((t.ins + t.upd + t.del) / alerts).toFixed(2)} (${(t.ins / alerts).toFixed(2)} ins, ${(t.upd / alerts).toFixed(2)} upd, ${(t.del / alerts).toFixed(2)} del)`)
    .join("; ");
}
