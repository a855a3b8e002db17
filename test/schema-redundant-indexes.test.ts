import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestDatabase, createTestDatabase } from "./helpers/db.ts";

/**
 * Every index is written on every insert and on every update that is not HOT: one that another
 * index already serves costs each write and buys no read. A plain (non-unique) btree index whose
 * key columns, with their order and direction, lead another btree index with the same predicate
 * is such an index (bis_notifications_shop_created was, under bis_notifications_shop_created_id).
 */

let database: TestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 1 });
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

describe("the schema's indexes", () => {
  it("none is a leading prefix of another on the same table with the same predicate", async () => {
    const { rows } = await pool.query<{ redundant: string; covered_by: string }>(
      `with i as (
         select c.relname as name, x.indrelid, x.indisunique, string_to_array(x.indkey::text, ' ')::int[] as keys, string_to_array(x.indoption::text, ' ')::int[] as options,
                pg_get_expr(x.indpred, x.indrelid) as predicate, am.amname
         from pg_index x
         join pg_class c on c.oid = x.indexrelid
         join pg_am am on am.oid = c.relam
         join pg_namespace n on n.oid = c.relnamespace
         where n.nspname = 'public' and x.indexprs is null
       )
       select a.name as redundant, b.name as covered_by
       from i a join i b on a.indrelid = b.indrelid and a.name <> b.name
       where a.amname = 'btree' and b.amname = 'btree' and not a.indisunique
         and coalesce(a.predicate, '') = coalesce(b.predicate, '')
         and cardinality(a.keys) <= cardinality(b.keys)
         and a.keys = b.keys[1:cardinality(a.keys)] and a.options = b.options[1:cardinality(a.options)]
       order by 1`,
    );
    expect(rows).toEqual([]);
  });
});
