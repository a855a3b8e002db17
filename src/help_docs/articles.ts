import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The help articles shipped in the repository: `docs/help/<url>.md`, each a Markdown body after a
 * front matter of four one-line fields:
 *
 *     ---
 *     title: Rate limits
 *     url: rate-limits
 *     summary: One sentence saying what the article answers.
 *     keywords: 429, retry-after, points, budget
 *     ---
 *
 * `url` is the article's stable address (lower-case words joined by `-`) and must be the file's
 * name; `keywords` are separated by commas. Anything else is refused, so a broken article fails
 * loudly instead of vanishing from search.
 */

const HELP_DIR = fileURLToPath(new URL("../../docs/help/", import.meta.url));

const ARTICLE_URL = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

const FIELDS = ["title", "url", "summary", "keywords"] as const;

export interface HelpArticle {
  url: string;
  title: string;
  summary: string;
  keywords: string[];
  /** The Markdown after the front matter. */
  body: string;
  /**
   * The body without Markdown syntax (and without a first heading that repeats the title): what
   * full-text search indexes and snippets are cut from.
   */
  plainBody: string;
  /**
   * sha256 of what is stored (the fields and the derived plain text), so the loader replaces an
   * article when its file changed or when the way it is indexed changed.
   */
  contentHash: string;
}

/** Parses one article file; throws naming the file and the problem. */
export function parseArticle(fileName: string, text: string): HelpArticle {
  const fail = (problem: string): never => {
    throw new Error(`Help article ${fileName}: ${problem}`);
  };
  const normalized = text.replace(/\r\n/g, "\n");
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(normalized);
  if (!match) return fail("must start with a front matter between two --- lines");
  const [, head = "", rest = ""] = match;
  const fields = new Map<string, string>();
  for (const line of head.split("\n")) {
    if (line.trim() === "") continue;
    const field = /^([a-z_]+):\s*(.*)$/.exec(line);
    if (!field?.[1]) return fail(`front matter line is not "name: value": ${line}`);
    const name = field[1];
    if (!(FIELDS as readonly string[]).includes(name)) return fail(`unknown front matter field ${name}`);
    if (fields.has(name)) return fail(`front matter field ${name} is given twice`);
    fields.set(name, (field[2] ?? "").trim());
  }
  for (const name of FIELDS) if (!fields.get(name)) fail(`front matter field ${name} is missing or empty`);
  const url = fields.get("url") ?? "";
  if (!ARTICLE_URL.test(url)) fail(`url must be lower-case words joined by "-": ${url}`);
  if (fileName !== `${url}.md`) fail(`the file must be named after its url (${url}.md)`);
  const keywords = (fields.get("keywords") ?? "")
    .split(",")
    .map((k) => k.trim())
    .filter((k) => k !== "");
  if (keywords.length === 0) fail("keywords must list at least one keyword");
  const body = rest.trim();
  if (body === "") fail("the body is empty");
  const title = fields.get("title") ?? "";
  // A first heading that repeats the title is the title: indexed (weight A) and shown once.
  const heading = /^#\s+(.*)\n/.exec(body);
  const searchable = heading?.[1]?.trim() === title ? body.slice(heading[0].length) : body;
  const stored = { url, title, summary: fields.get("summary") ?? "", keywords, body, plainBody: plainText(searchable) };
  return { ...stored, contentHash: createHash("sha256").update(JSON.stringify(stored)).digest("hex") };
}

/**
 * Markdown to readable plain text: the words stay, the syntax goes (code fences, heading marks,
 * emphasis, inline code marks, link targets, table pipes), so that a snippet reads as text.
 */
function plainText(markdown: string): string {
  return markdown
    .split("\n")
    .filter((line) => !/^\s*(```|~~~)/.test(line) && !/^\s*\|?\s*:?-{3,}/.test(line) && !/^\s*(-{3,}|\*{3,})\s*$/.test(line))
    .map((line) =>
      line
        .replace(/^\s{0,3}#{1,6}\s+/, "")
        .replace(/^\s*>\s?/, "")
        .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
        .replace(/\*\*([^*]+)\*\*/g, "$1")
        .replace(/__([^_]+)__/g, "$1")
        .replace(/(^|[\s(])\*([^*\s][^*]*)\*/g, "$1$2")
        .replace(/`([^`]*)`/g, "$1")
        .replace(/^\s*\|/, "")
        .replace(/\|\s*$/, "")
        .replace(/\s*\|\s*/g, "; "),
    )
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** Every article of `dir` (default docs/help), sorted by url; throws on a broken one or a repeated url. */
export async function readArticles(dir: string = HELP_DIR): Promise<HelpArticle[]> {
  const files = (await fs.readdir(dir)).filter((f) => f.endsWith(".md")).sort();
  const articles: HelpArticle[] = [];
  const urls = new Set<string>();
  for (const file of files) {
    const article = parseArticle(file, await fs.readFile(path.join(dir, file), "utf8"));
    if (urls.has(article.url)) throw new Error(`Help article ${file}: url ${article.url} is used twice`);
    urls.add(article.url);
    articles.push(article);
  }
  return articles;
}
