-- Help articles about this service, shipped in the repository as Markdown (docs/help/*.md) and
-- loaded here by the processes that serve them (src/help_docs/load.ts), so that they can be
-- searched with PostgreSQL full-text search. Not per shop: every shop reads the same articles.
-- The loader replaces an article only when its content_hash changed, and removes articles whose
-- file is gone; url is the article's stable address (its front matter `url`).
create table help_articles (
  url text primary key,
  title text not null,
  summary text not null,
  keywords text[] not null default '{}',
  -- The article as written (Markdown), and the same text without Markdown syntax: snippets are
  -- cut from the plain text so that they read as plain text.
  body text not null,
  plain_body text not null,
  content_hash text not null,
  -- When this content (this hash) was first loaded into this database.
  updated_at timestamptz not null default now(),
  -- Weighted: title A, summary and keywords B, body C (ts_rank_cd ranks title matches first).
  search tsvector not null
);

create index help_articles_search on help_articles using gin (search);
