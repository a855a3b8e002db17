import { z } from "zod";
import { defineAction } from "../../../core/action.ts";
import { invalidField, notFound } from "../../../core/errors.ts";
import { timestampOutput } from "../../../core/outputs.ts";
import { notBlank } from "../../../core/schemas.ts";
import { ensureHelpArticles } from "../../../help_docs/load.ts";
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, anyWordQuery, listArticles, readArticle, searchArticles, searchable } from "../../../help_docs/search.ts";

/**
 * An integer from the query string (digits) or, through MCP, a JSON number: agents send numbers.
 * Anything else keeps its type, so "1.5", "ten" and true read `limit must be an integer`.
 */
const searchLimit = z.preprocess(
  (value) => (typeof value === "string" && /^\d{1,9}$/.test(value) ? Number(value) : value),
  z.int({ error: (issue) => (issue.code === "invalid_type" ? "must be an integer" : undefined) }).min(1).max(MAX_SEARCH_LIMIT),
);

const searchOutput = z
  .strictObject({
    query: z.string().describe("the query as given"),
    match: z
      .enum(["all", "any"])
      .describe("all: the results match every word of the query; any: nothing matched every word, so these match some of them"),
    results: z.array(
      z.strictObject({
        title: z.string(),
        url: z.string().describe("pass as url to read the whole article"),
        summary: z.string(),
        snippet: z.string().describe("plain-text preview around the matches, matched words between ** marks; not the article"),
        score: z.number().min(0).describe("relevance from 0 to 1, higher first"),
      }),
    ),
  })
  .describe("With query: the matching articles, best first (empty when nothing matches)");

const articleOutput = z
  .strictObject({
    title: z.string(),
    url: z.string(),
    summary: z.string(),
    keywords: z.array(z.string()),
    body: z.string().describe("the whole article, Markdown"),
    updated_at: timestampOutput.describe("when this version of the article was first loaded"),
  })
  .describe("With url: the whole article");

const listOutput = z
  .strictObject({
    articles: z.array(z.strictObject({ title: z.string(), url: z.string(), summary: z.string() })),
  })
  .describe("With neither: every article's title, url and summary, by url");

export const getHelpDocs = defineAction({
  name: "account.help_docs.get",
  method: "GET",
  path: "/account/help_docs",
  description:
    "Help articles about this service. With query: a full-text search (words, \"quoted phrases\", -excluded words, or) answering up to limit results (default 5, at most 20), best first, each with title, url, summary, a snippet and a score. With url: that whole article, its body in Markdown. With neither: the list of every article (title, url, summary).",
  notes: [
    "Search first, then read the matching article by url: search snippets are previews only.",
    "query and url cannot be combined, and limit is only allowed with query (422).",
    "Results match every word of the query (match: all); when no article has them all, a query of plain words is tried again matching any of them (match: any).",
    "A query of common words only (such as \"how do i\") has nothing to search for and answers 422; a query that matches nothing answers an empty results list.",
    "An unknown url answers 404 Help article not found: <url>.",
    "The articles are the same for every shop.",
  ],
  aliases: ["search the help articles", "read a help article", "find documentation about this api", "list help docs"],
  kind: "read",
  input: z
    .strictObject({
      query: notBlank(z.string().max(500)).optional().describe("search text, web-search syntax"),
      url: z.string().min(1).max(200).optional().describe("an article's url (from a search result or the list), to read it whole"),
      limit: searchLimit.optional().describe(`results of a search, 1 to ${String(MAX_SEARCH_LIMIT)} (default ${String(DEFAULT_SEARCH_LIMIT)})`),
    })
    .superRefine((value, ctx) => {
      if (value.query !== undefined && value.url !== undefined) {
        ctx.addIssue({ code: "custom", path: ["url"], message: "cannot be combined with query: search with query, then read one article by url", input: value.url });
      }
      if (value.limit !== undefined && value.query === undefined) {
        ctx.addIssue({ code: "custom", path: ["limit"], message: "is only allowed with query", input: value.limit });
      }
    }),
  output: z.union([searchOutput, articleOutput, listOutput]).meta({ type: "object" }),
  async handler(ctx, { input }) {
    await ensureHelpArticles(ctx.pool);
    if (input.query !== undefined) {
      if (!(await searchable(ctx.db, input.query))) {
        throw invalidField("query", "must contain a word to search for (it has only common words such as \"the\" or \"how\")");
      }
      const limit = input.limit ?? DEFAULT_SEARCH_LIMIT;
      const results = await searchArticles(ctx.db, input.query, limit);
      const loose = results.length === 0 ? anyWordQuery(input.query) : undefined;
      if (loose === undefined) return { query: input.query, match: "all", results };
      return { query: input.query, match: "any", results: await searchArticles(ctx.db, loose, limit) };
    }
    if (input.url !== undefined) {
      const article = await readArticle(ctx.db, input.url);
      if (!article) throw notFound("Help article", input.url);
      return article;
    }
    return { articles: await listArticles(ctx.db) };
  },
});
