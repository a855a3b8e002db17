import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { type HelpArticle, parseArticle, readArticles } from "../src/help_docs/articles.ts";
import { syncHelpArticles } from "../src/help_docs/load.ts";
import { api } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv();

interface SearchAnswer {
  query: string;
  match: "all" | "any";
  results: { title: string; url: string; summary: string; snippet: string; score: number }[];
}

async function search(query: string, limit?: string): Promise<SearchAnswer> {
  const params = new URLSearchParams({ query, ...(limit === undefined ? {} : { limit }) });
  const answer = await api(env.app, "GET", `/account/help_docs?${params.toString()}`, { key: env.key });
  expect(answer.status).toBe(200);
  return answer.body as SearchAnswer;
}

async function errorsOf(query: string): Promise<{ status: number; body: unknown }> {
  const answer = await api(env.app, "GET", `/account/help_docs?${query}`, { key: env.key });
  return { status: answer.status, body: answer.body };
}

describe("a newcomer's first search", () => {
  it("finds the getting-started article for quickstart, and GET /help?search= says where articles are searched", async () => {
    for (const query of ["quickstart", "quick start", "getting started"]) {
      expect((await search(query)).results[0]?.url, query).toBe("getting-started");
    }
    expect(await errorsOf("query=quickstart").then((a) => a.status)).toBe(200);
    const wrongPlace = await api(env.app, "GET", "/help?search=quickstart", { key: env.key });
    expect(wrongPlace).toMatchObject({
      status: 422,
      body: { errors: ["search is not allowed: the help articles are searched with GET /account/help_docs?query=...; this lists the actions (prefix, format)"] },
    });
  });
});

describe("shipped help articles", () => {
  it("are at least 25, each with the front matter and a url of its own that names its file", async () => {
    const articles = await readArticles();
    expect(articles.length).toBeGreaterThanOrEqual(25);
    expect(new Set(articles.map((a) => a.url)).size).toBe(articles.length);
    for (const article of articles) {
      expect(article.title.length, article.url).toBeGreaterThan(0);
      expect(article.summary.length, article.url).toBeGreaterThan(20);
      expect(article.keywords.length, article.url).toBeGreaterThan(0);
      expect(article.body.length, article.url).toBeGreaterThan(200);
      expect(article.url).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
    }
  });

  it("refuses an article without front matter, with an unknown field, or named unlike its url", () => {
    expect(() => parseArticle("a.md", "# no front matter\n")).toThrow("must start with a front matter");
    expect(() => parseArticle("a.md", "---\ntitle: A\nurl: a\nsummary: S\nkeywords: k\nauthor: me\n---\nbody\n")).toThrow("unknown front matter field author");
    expect(() => parseArticle("b.md", "---\ntitle: A\nurl: a\nsummary: S\nkeywords: k\n---\nbody\n")).toThrow("must be named after its url (a.md)");
    expect(() => parseArticle("a.md", "---\ntitle: A\nurl: a\nsummary: S\n---\nbody\n")).toThrow("keywords is missing");
    expect(parseArticle("a.md", "---\ntitle: A\nurl: a\nsummary: S\nkeywords: x, y z\n---\n# Head\n\nSome **bold** `code` [link](http://x)\n")).toMatchObject({
      keywords: ["x", "y z"],
      body: "# Head\n\nSome **bold** `code` [link](http://x)",
      plainBody: "Head\n\nSome bold code link",
    });
    // a first heading that repeats the title is not indexed (nor cut into snippets) twice
    expect(parseArticle("a.md", "---\ntitle: A title\nurl: a\nsummary: S\nkeywords: k\n---\n# A title\n\nText | cell |\n")).toMatchObject({
      body: "# A title\n\nText | cell |",
      plainBody: "Text; cell",
    });
  });
});

describe("GET /account/help_docs", () => {
  it("needs the API key (401)", async () => {
    const answer = await api(env.app, "GET", "/account/help_docs?query=rate+limits");
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ errors: ["X-Auth-Token is missing or invalid"] });
  });

  it("lists every shipped article (title, url, summary) without query or url", async () => {
    const articles = await readArticles();
    const answer = await api(env.app, "GET", "/account/help_docs", { key: env.key });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      articles: articles.map((a) => ({ title: a.title, url: a.url, summary: a.summary })),
    });
  });

  it("ranks the article whose title matches the query first, with a snippet marking the term", async () => {
    const answer = await search("rate limits");
    expect(answer).toMatchObject({ query: "rate limits", match: "all" });
    expect(answer.results[0]).toMatchObject({ url: "rate-limits", title: "Rate limits" });
    expect(answer.results[0]?.snippet).toMatch(/\*\*(rate|limit)s?\*\*/i);
    for (const result of answer.results) expect(result.snippet).not.toMatch(/\n|\s{2}/);
    const scores = answer.results.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const score of scores) expect(score).toBeGreaterThan(0);
  });

  it("finds each article first by its own title", async () => {
    const articles = await readArticles();
    const misses: string[] = [];
    for (const article of articles) {
      const first = (await search(article.title, "1")).results[0];
      if (first?.url !== article.url) misses.push(`${article.title} -> ${first?.url ?? "nothing"}`);
    }
    expect(misses).toEqual([]);
  });

  it("answers 5 results by default and at most limit", async () => {
    expect((await search("offer")).results).toHaveLength(5);
    expect((await search("offer", "2")).results).toHaveLength(2);
    expect((await search("offer", "20")).results.length).toBeGreaterThan(5);
  });

  it("takes web-search syntax: a quoted phrase and an excluded word", async () => {
    const phrase = await search('"Retry-After"');
    expect(phrase.results.map((r) => r.url)).toContain("rate-limits");
    const excluded = await search("unsubscribe -sms", "20");
    for (const result of excluded.results) expect(result.snippet.toLowerCase()).not.toContain("**sms**");
  });

  it("answers an empty list when nothing matches", async () => {
    expect(await search("xylophonequartz")).toEqual({ query: "xylophonequartz", match: "all", results: [] });
    expect(await search('"xylophonequartz deposit"')).toEqual({ query: '"xylophonequartz deposit"', match: "all", results: [] });
  });

  it("matches any word of a plain-words query when no article has them all", async () => {
    const all = await search("deposit percent");
    expect(all.match).toBe("all");
    expect(all.results[0]?.url).toBe("offer-payments-and-deposits");
    const any = await search("xylophonequartz deposits");
    expect(any.match).toBe("any");
    expect(any.results[0]?.url).toBe("offer-payments-and-deposits");
    expect(any.results[0]?.snippet).toContain("**deposit");
  });

  it("refuses a query of common words only, which has nothing to search for (422)", async () => {
    expect(await errorsOf("query=how+do+i+the")).toEqual({
      status: 422,
      body: { errors: ['query must contain a word to search for (it has only common words such as "the" or "how")'] },
    });
  });

  it("reads one article whole by url: the file's Markdown body", async () => {
    const article = (await readArticles()).find((a) => a.url === "jobs-and-polling") as HelpArticle;
    const answer = await api(env.app, "GET", "/account/help_docs?url=jobs-and-polling", { key: env.key });
    expect(answer.status).toBe(200);
    const { updated_at: updatedAt, ...rest } = answer.body as { updated_at: string };
    expect(rest).toEqual({ title: article.title, url: "jobs-and-polling", summary: article.summary, keywords: article.keywords, body: article.body });
    expect(new Date(updatedAt).toISOString()).toBe(updatedAt);
  });

  it("answers 404 for an unknown url", async () => {
    expect(await errorsOf("url=no-such-article")).toEqual({ status: 404, body: { errors: ["Help article not found: no-such-article"] } });
  });

  it("validates limit, the combinations and unknown parameters (422)", async () => {
    expect(await errorsOf("query=jobs&limit=0")).toEqual({ status: 422, body: { errors: ["limit must be at least 1"] } });
    expect(await errorsOf("query=jobs&limit=21")).toEqual({ status: 422, body: { errors: ["limit must be at most 20"] } });
    expect(await errorsOf("query=jobs&limit=1.5")).toEqual({ status: 422, body: { errors: ["limit must be an integer"] } });
    expect(await errorsOf("query=jobs&limit=ten")).toEqual({ status: 422, body: { errors: ["limit must be an integer"] } });
    expect(await errorsOf("limit=3")).toEqual({ status: 422, body: { errors: ["limit is only allowed with query"] } });
    expect(await errorsOf("query=jobs&url=jobs-and-polling")).toEqual({
      status: 422,
      body: { errors: ["url cannot be combined with query: search with query, then read one article by url"] },
    });
    expect(await errorsOf("query=")).toEqual({ status: 422, body: { errors: ["query must not be empty"] } });
    expect(await errorsOf("query=%20%20")).toEqual({ status: 422, body: { errors: ["query must not be blank"] } });
    expect(await errorsOf("q=jobs")).toEqual({ status: 422, body: { errors: ["q is not allowed"] } });
  });
});

describe("loading the articles", () => {
  it("changes nothing when the files are unchanged, and picks up an edited, a new and a removed article", async () => {
    const articles = await readArticles();
    await api(env.app, "GET", "/account/help_docs", { key: env.key }); // loaded on first use
    expect(await syncHelpArticles(env.pool, articles)).toBe(0);

    const before = (await api(env.app, "GET", "/account/help_docs?url=paging", { key: env.key })).body as { updated_at: string };
    const edited = articles
      .filter((a) => a.url !== "errors")
      .map((a) => (a.url === "paging" ? { ...a, body: `${a.body}\n\nZebracorn paging note.`, plainBody: `${a.plainBody}\n\nZebracorn paging note.`, contentHash: "edited" } : a));
    const added: HelpArticle = { ...edited[0]!, url: "added-article", title: "Added article", contentHash: "added" };
    // 3: the edited article, the added one, the removed one
    expect(await syncHelpArticles(env.pool, [...edited, added])).toBe(3);
    const after = (await api(env.app, "GET", "/account/help_docs?url=paging", { key: env.key })).body as { body: string; updated_at: string };
    expect(after.body).toContain("Zebracorn paging note.");
    expect(Date.parse(after.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.updated_at));
    expect((await search("zebracorn")).results.map((r) => r.url)).toEqual(["paging"]);
    expect((await errorsOf("url=errors")).status).toBe(404);
    expect((await errorsOf("url=added-article")).status).toBe(200);

    // back to the shipped files
    expect(await syncHelpArticles(env.pool, articles)).toBe(3);
    expect((await search("zebracorn")).results).toEqual([]);
  });
});

describe("loading the articles from several processes at once", () => {
  it("ends with each article once, whichever process loads first", async () => {
    const articles = await readArticles();
    await env.pool.query("delete from help_articles");
    const other = new pg.Pool({ connectionString: env.db.url, max: 2 });
    try {
      const changed = await Promise.all([syncHelpArticles(env.pool, articles), syncHelpArticles(other, articles), syncHelpArticles(other, articles)]);
      // every article written once: the later loaders find them current (content hash) and write nothing
      expect(changed.reduce((a, b) => a + b, 0)).toBe(articles.length);
    } finally {
      await other.end();
    }
    const { rows } = await env.pool.query<{ url: string; content_hash: string }>("select url, content_hash from help_articles order by url");
    expect(rows).toEqual(articles.map((a) => ({ url: a.url, content_hash: a.contentHash })));
  });
});

describe("help docs through MCP", () => {
  it("searches with a JSON number as limit and answers the results as structured content", async () => {
    const client = new Client({ name: "test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${env.app.origin}/api/v2/external/mcp?toolsets=all`), {
      requestInit: { headers: { "x-auth-token": env.key } },
    });
    await client.connect(transport);
    try {
      const tool = (await client.listTools()).tools.find((t) => t.name === "account_help_docs_get");
      expect(tool?.outputSchema).toMatchObject({ type: "object" });
      const found = await client.callTool({ name: "account_help_docs_get", arguments: { query: "unsubscribe link", limit: 2 } });
      expect(found.isError).toBeFalsy();
      const structured = found.structuredContent as SearchAnswer;
      expect(structured.results).toHaveLength(2);
      expect(structured.results[0]?.url).toBe("unsubscribe");
    } finally {
      await client.close();
    }
  });

  it("answers a refused limit as a tool error with the API's message", async () => {
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${env.app.origin}/api/v2/external/mcp?toolsets=all`), { requestInit: { headers: { "x-auth-token": env.key } } }));
    try {
      // A client that listed the tools checks structuredContent against the outputSchema: errors must still reach it.
      await client.listTools();
      const refused = await client.callTool({ name: "account_help_docs_get", arguments: { query: "jobs", limit: 0 } });
      expect(refused).toMatchObject({ isError: true, content: [{ type: "text", text: "422: limit must be at least 1" }] });
    } finally {
      await client.close();
    }
  });
});
