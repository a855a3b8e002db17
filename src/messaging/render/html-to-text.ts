/**
 * The text part of an e-mail from its rendered HTML: links keep their target, blocks their breaks.
 * One pass over the HTML, each character looked at a bounded number of times: the HTML is a
 * merchant's template's output, and the regular expressions this replaces backtracked on
 * thousands of unclosed `<a href>` (a 96 KB body took 203 s, in the web process for a preview).
 */

/** Elements whose content is not text at all. */
const DROPPED = new Set(["style", "script", "head"]);
/** Elements whose end is a paragraph break. */
const BLOCKS = new Set(["p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "li", "tr", "table", "ul", "ol", "blockquote"]);

const ENTITY = /&(nbsp|lt|gt|quot|amp|#\d{1,7}|#x[0-9a-f]{1,6});/gi;
const NAMED: Record<string, string> = { nbsp: " ", lt: "<", gt: ">", quot: '"', amp: "&" };

function codePoint(code: number, entity: string): string {
  return code <= 0x10ffff ? String.fromCodePoint(code) : entity;
}

/** Decodes the entities e-mail HTML uses, once each (`&amp;lt;` is `&lt;`). */
function decodeEntities(text: string): string {
  return text.replace(ENTITY, (entity, name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith("#x")) return codePoint(Number.parseInt(lower.slice(2), 16), entity);
    if (lower.startsWith("#")) return codePoint(Number(lower.slice(1)), entity);
    return NAMED[lower] ?? entity;
  });
}

/** A tag's name, lower case, and whether it closes: from the text between `<` and `>`. */
function tagOf(inner: string): { name: string; closing: boolean } {
  // One optional group for the slash, not `\s*\/?\s*`: two adjacent \s* backtrack quadratically on a tag of spaces.
  const match = /^\s*(?:(\/)\s*)?([a-z][a-z0-9]*)/i.exec(inner);
  return { name: match?.[2]?.toLowerCase() ?? "", closing: match?.[1] === "/" };
}

/** An `<a>` tag's quoted href, undecoded. */
function hrefOf(inner: string): string | undefined {
  return /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(inner)?.slice(1, 3).find((v) => v !== undefined);
}

export function htmlToText(html: string): string {
  const lower = html.toLowerCase();
  const out: string[] = [];
  /** The open link: its target, where its label starts in `out`, and the breaks written inside it. */
  let link: { href: string; start: number; breaks: Set<number> } | undefined;
  /** A line or paragraph break; one inside a link's label is dropped if the link closes (its label stays on one line). */
  const pushBreak = (text: string) => {
    link?.breaks.add(out.length);
    out.push(text);
  };
  /** Elements known to have no closing tag after some point (so that is never searched again). */
  const unclosed = new Set<string>();
  let at = 0;
  while (at < html.length) {
    const open = html.indexOf("<", at);
    if (open < 0) {
      out.push(decodeEntities(html.slice(at)));
      break;
    }
    if (open > at) out.push(decodeEntities(html.slice(at, open)));
    const close = html.indexOf(">", open + 1);
    if (close < 0) {
      // No tag ends: the rest is text, as written.
      out.push(decodeEntities(html.slice(open)));
      break;
    }
    const inner = html.slice(open + 1, close);
    at = close + 1;
    const { name, closing } = tagOf(inner);
    if (!closing && DROPPED.has(name) && !unclosed.has(name)) {
      const end = lower.indexOf(`</${name}`, at);
      const endClose = end < 0 ? -1 : html.indexOf(">", end);
      if (endClose >= 0) {
        at = endClose + 1;
        continue;
      }
      unclosed.add(name);
    }
    if (name === "a" && !closing) {
      const href = hrefOf(inner);
      link = href === undefined ? undefined : { href: decodeEntities(href), start: out.length, breaks: new Set() };
    } else if (name === "a" && closing) {
      if (link) {
        const { start, breaks, href } = link;
        const label = out
          .splice(start)
          .filter((_, i) => !breaks.has(start + i))
          .join("")
          .trim();
        out.push(label && label !== href ? `${label} (${href})` : href);
        link = undefined;
      }
    } else if (name === "br" && !closing) {
      pushBreak("\n");
    } else if (name === "li" && !closing) {
      pushBreak("\n- ");
    } else if (closing && BLOCKS.has(name)) {
      pushBreak("\n\n");
    }
  }
  return out
    .join("")
    .split("\n")
    .map((line) => line.replace(/[ \t]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
