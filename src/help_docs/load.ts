import type pg from "pg";
import { type HelpArticle, readArticles } from "./articles.ts";

/**
 * Brings the help_articles table in line with the shipped files: inserts new articles, replaces
 * those whose content hash changed (updated_at moves then), removes those whose file is gone.
 * Idempotent; several processes may run it at once (a transaction-level advisory lock makes them
 * take turns). Returns how many rows it changed.
 */
export async function syncHelpArticles(pool: pg.Pool, articles: readonly HelpArticle[]): Promise<number> {
  const stored = await pool.query<{ url: string; content_hash: string }>("select url, content_hash from help_articles");
  const current = new Map(stored.rows.map((r) => [r.url, r.content_hash]));
  const changed = articles.filter((a) => current.get(a.url) !== a.contentHash);
  const gone = [...current.keys()].filter((url) => !articles.some((a) => a.url === url));
  if (changed.length === 0 && gone.length === 0) return 0;
  const client = await pool.connect();
  try {
    await client.query("begin");
    await client.query("select pg_advisory_xact_lock(hashtext('help_articles'))");
    const rows = changed.map((a) => ({
      url: a.url,
      title: a.title,
      summary: a.summary,
      keywords: a.keywords,
      body: a.body,
      plain_body: a.plainBody,
      content_hash: a.contentHash,
    }));
    const upserted = await client.query(
      `insert into help_articles (url, title, summary, keywords, body, plain_body, content_hash, search)
       select a.url, a.title, a.summary, a.keywords, a.body, a.plain_body, a.content_hash,
              setweight(to_tsvector('english', a.title), 'A')
              || setweight(to_tsvector('english', a.summary || ' ' || array_to_string(a.keywords, ', ')), 'B')
              || setweight(to_tsvector('english', a.plain_body), 'C')
       from jsonb_to_recordset($1::jsonb)
            as a(url text, title text, summary text, keywords text[], body text, plain_body text, content_hash text)
       on conflict (url) do update
         set title = excluded.title, summary = excluded.summary, keywords = excluded.keywords, body = excluded.body,
             plain_body = excluded.plain_body, content_hash = excluded.content_hash, search = excluded.search, updated_at = now()
         where help_articles.content_hash <> excluded.content_hash`,
      [JSON.stringify(rows)],
    );
    const removed = await client.query("delete from help_articles where url <> all($1::text[])", [articles.map((a) => a.url)]);
    await client.query("commit");
    return (upserted.rowCount ?? 0) + (removed.rowCount ?? 0);
  } catch (error) {
    await client.query("rollback").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

let shipped: Promise<HelpArticle[]> | undefined;
const loaded = new WeakMap<pg.Pool, Promise<void>>();

/**
 * Loads the shipped articles into the database of `pool` once per process (and pool): the first
 * help-docs call of a process waits for it, later calls do not. Files are read once per process,
 * so an edited article is picked up on the next restart. A failure is not remembered: the next
 * call tries again.
 */
export function ensureHelpArticles(pool: pg.Pool): Promise<void> {
  let done = loaded.get(pool);
  if (!done) {
    shipped ??= readArticles().catch((error: unknown) => {
      shipped = undefined;
      throw error;
    });
    done = shipped.then(async (articles) => {
      await syncHelpArticles(pool, articles);
    });
    done.catch(() => loaded.delete(pool));
    loaded.set(pool, done);
  }
  return done;
}
