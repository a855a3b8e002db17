import type { Db } from "../core/db.ts";

export const DEFAULT_SEARCH_LIMIT = 5;
export const MAX_SEARCH_LIMIT = 20;

/** The marks around matched words in a snippet (plain text otherwise). */
const SNIPPET_START = "**";
const SNIPPET_STOP = "**";

interface SearchResult {
  title: string;
  url: string;
  summary: string;
  snippet: string;
  score: number;
}

/**
 * Rank weights {D, C, B, A}: a title match (A) counts five times a summary or keyword match (B) and
 * ten times a body match (C), so an article about the thing asked outranks one that mentions it.
 */
const WEIGHTS = "{0.05, 0.1, 0.5, 1.0}";
/** 1: divide by 1 + log(length), so long articles do not win by length alone; 32: scale to [0, 1). */
const NORMALIZATION = 1 | 32;
const HEADLINE_OPTIONS = `StartSel="${SNIPPET_START}", StopSel="${SNIPPET_STOP}", MaxWords=35, MinWords=15, ShortWord=2, MaxFragments=2, FragmentDelimiter=" ... "`;

/** Whether the query has any word to search for (`the of and` has none: only stop words). */
export async function searchable(db: Db, query: string): Promise<boolean> {
  const { rows } = await db.query<{ nodes: number }>("select numnode(websearch_to_tsquery('english', $1)) as nodes", [query]);
  return (rows[0]?.nodes ?? 0) > 0;
}

/**
 * Full-text search (web-search syntax: words, "quoted phrases", -excluded, or), best first; the
 * snippet is cut from the plain text of the body around the matches, matched words between `**`.
 */
export async function searchArticles(db: Db, query: string, limit: number): Promise<SearchResult[]> {
  const { rows } = await db.query<SearchResult>(
    `with q as (select websearch_to_tsquery('english', $1) as query),
     ranked as (
       select a.title, a.url, a.summary, a.plain_body, q.query,
              ts_rank_cd('${WEIGHTS}'::float4[], a.search, q.query, ${String(NORMALIZATION)}) as rank_cd
       from help_articles a, q
       where a.search @@ q.query
       order by rank_cd desc, a.url
       limit $2
     )
     select title, url, summary, ts_headline('english', plain_body, query, '${HEADLINE_OPTIONS}') as snippet,
            round(rank_cd::numeric, 4)::float8 as score
     from ranked
     order by rank_cd desc, url`,
    [query, limit],
  );
  // A snippet is a preview on one line: the body's line breaks and indentation are noise there.
  return rows.map((row) => ({ ...row, snippet: row.snippet.replace(/\s+/g, " ").trim() }));
}

/**
 * The query with its words joined by `or`, for a second try when nothing matched every word
 * (an agent's question in plain words rarely has all its words in one article). Undefined when
 * the query has one word, or uses the web-search operators ("phrases", -exclusions, or), which
 * say precisely what to match.
 */
export function anyWordQuery(query: string): string | undefined {
  if (/"/.test(query) || /(^|\s)-\S/.test(query) || /(^|\s)or(\s|$)/i.test(query)) return undefined;
  const words = query.split(/\s+/).filter((w) => w !== "");
  return words.length > 1 ? words.join(" or ") : undefined;
}

interface ArticleRow {
  title: string;
  url: string;
  summary: string;
  keywords: string[];
  body: string;
  updated_at: Date;
}

export async function readArticle(db: Db, url: string): Promise<ArticleRow | undefined> {
  const { rows } = await db.query<ArticleRow>(
    "select title, url, summary, keywords, body, updated_at from help_articles where url = $1",
    [url],
  );
  return rows[0];
}

export async function listArticles(db: Db): Promise<Pick<ArticleRow, "title" | "url" | "summary">[]> {
  const { rows } = await db.query<Pick<ArticleRow, "title" | "url" | "summary">>("select title, url, summary from help_articles order by url");
  return rows;
}
