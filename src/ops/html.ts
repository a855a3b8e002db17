/** Text for HTML element content and attribute values (double-quoted). */
export function esc(value: unknown): string {
  const text = value === null || value === undefined ? "" : typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" || typeof value === "bigint" ? String(value) : JSON.stringify(value) ?? "";
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

/** A timestamp as ISO 8601 to the second, or "-". */
export function time(value: Date | string | null | undefined): string {
  if (!value) return "-";
  const date = value instanceof Date ? value : new Date(value);
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** How long ago (or ahead) `value` is from `now`, in the largest whole unit: "3 min ago", "in 2 h". */
export function relative(value: Date, now: number): string {
  const seconds = Math.round((now - value.getTime()) / 1000);
  const abs = Math.abs(seconds);
  const [n, unit] = abs < 60 ? [abs, "s"] : abs < 3600 ? [Math.floor(abs / 60), "min"] : abs < 86_400 ? [Math.floor(abs / 3600), "h"] : [Math.floor(abs / 86_400), "d"];
  if (abs < 5) return "just now";
  return seconds >= 0 ? `${n} ${unit} ago` : `in ${n} ${unit}`;
}

/** A timestamp as HTML: the relative time, the exact ISO time in datetime and on hover (title); "-" without one. */
export function when(value: Date | string | null | undefined, now = Date.now()): string {
  if (!value) return "-";
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return esc(String(value));
  const iso = time(date);
  return `<time datetime="${esc(date.toISOString())}" title="${esc(iso)}">${esc(relative(date, now))}</time>`;
}

/** Statuses with a colour of their own (anything else is shown plain). */
const STATUS_CLASSES: Record<string, string> = {
  completed: "ok", sent: "ok", synced: "ok", success: "ok",
  failed: "bad", cancelled: "muted", blocked: "muted", refused: "bad",
  retrying: "warn", scheduled: "info", queued: "info", pending: "info", running: "run",
};

/** The colour kind of a status: ok, bad, warn, info, run, muted or plain. */
export const statusClass = (status: string): string => STATUS_CLASSES[status] ?? "plain";

/** A status as a coloured badge (class status-<kind>). */
export function badge(status: string | null | undefined): string {
  const text = status ?? "-";
  return `<span class="badge status-${statusClass(text)}" data-status="${esc(text)}">${esc(text)}</span>`;
}

export const PER_PAGE = 50;

/** `?page=N` (1-based, default 1), bounded. */
export function pageOf(value: string | undefined): number {
  const n = Math.trunc(Number(value ?? 1));
  return Number.isFinite(n) && n >= 1 ? Math.min(n, 100_000) : 1;
}

/** Previous/next links over a list of `total` rows, keeping the list's other query parameters. */
export function pager(id: string, path: string, query: URLSearchParams, page: number, total: number, perPage = PER_PAGE): string {
  const pages = Math.max(1, Math.ceil(total / perPage));
  const link = (n: number, label: string, rel: string) => {
    const q = new URLSearchParams(query);
    q.set("page", String(n));
    return `<a rel="${rel}" class="${rel}" href="${esc(`${path}?${q.toString()}`)}">${esc(label)}</a>`;
  };
  const first = total === 0 ? 0 : (page - 1) * perPage + 1;
  const last = Math.min(total, page * perPage);
  return `<nav class="pager" id="${esc(id)}" aria-label="pages" data-page="${esc(page)}" data-pages="${esc(pages)}">
${page > 1 ? link(page - 1, "← newer", "prev") : ""} <span class="range">${esc(`${first}-${last} of ${total}`)} · page ${esc(page)} of ${esc(pages)}</span> ${page < pages ? link(page + 1, "older →", "next") : ""}</nav>`;
}

export const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

interface PageOptions {
  title: string;
  body: string;
  /** The logout form's CSRF token; absent on the login page (no nav either). */
  csrf?: string;
  flash?: string;
}

export function page(options: PageOptions): string {
  const nav =
    options.csrf === undefined
      ? ""
      : `<header><nav id="ops-nav"><a href="/ops">Overview</a> <a href="/ops/jobs">Jobs</a> <a href="/ops/messages">Failed messages</a> <a href="/ops/search">Search</a></nav>
<form id="logout" method="post" action="/ops/logout"><input type="hidden" name="csrf" value="${esc(options.csrf)}"><button type="submit">Log out</button></form></header>`;
  const flash = options.flash ? `<p id="flash" role="status">${esc(options.flash)}</p>` : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(options.title)} · Ops console</title><link rel="stylesheet" href="/ops/static/ops.css"></head>
<body>${nav}<main><h1>${esc(options.title)}</h1>${flash}${options.body}</main>
<script src="/ops/static/ops.js"></script></body></html>
`;
}

/**
 * A part of a page that refreshes itself (src/ops/static.ts) from `url`, a fragment rendered by
 * the same function as `inner`, every `seconds`; with the time of its last refresh.
 */
export function liveRegion(id: string, url: string, seconds: number, inner: string): string {
  return `<p class="refresh">Last refresh: <span id="last-refresh">${esc(new Date().toISOString())}</span> (every ${esc(seconds)} s)</p>
<div id="${esc(id)}" data-live="${esc(url)}" data-refresh="${esc(seconds)}">${inner}</div>`;
}

export const CSS = `body{font-family:system-ui,sans-serif;margin:0;color:#222}header{display:flex;gap:1em;align-items:center;justify-content:space-between;background:#223;padding:.5em 1em}
header a{color:#fff;margin-right:1em}main{padding:1em}table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
pre{background:#f4f4f4;padding:.5em;white-space:pre-wrap;word-break:break-all}#flash{background:#ffd;padding:.5em}#login-error{color:#b00}.hidden{display:none!important}
td.status{font-weight:bold}section{margin-bottom:1.5em}form.inline{display:inline}
.badge{display:inline-block;padding:0 .45em;border-radius:.6em;font-weight:bold;font-size:.9em;border:1px solid transparent}
.status-ok{background:#e3f6e3;color:#14591c;border-color:#9bd29f}.status-bad{background:#fde4e4;color:#8a1111;border-color:#eba3a3}
.status-warn{background:#fff1d6;color:#7a4b00;border-color:#f0c36b}.status-info{background:#e4eefc;color:#1d3f7a;border-color:#9fbbe8}
.status-run{background:#ede4fc;color:#4a1d7a;border-color:#bda3e8}.status-muted{background:#eee;color:#555;border-color:#ccc}.status-plain{background:#f6f6f6}
tr.outcome-failed td,tr.outcome-retrying td{background:#fff8f8}tr.retry-mark td{background:#f3f3f3;font-style:italic}
time{border-bottom:1px dotted #999;cursor:help}.pager{margin:.5em 0}.pager a{margin:0 .5em}
svg.graph{max-width:100%;height:auto;background:#fff;border:1px solid #ddd}svg.graph .processed{fill:#3b9c4a}svg.graph .failed{fill:#d23c3c}
svg.graph text{font-size:11px;fill:#444}svg.graph line.axis{stroke:#999}svg.graph line.grid{stroke:#eee}
.ranges a{margin-right:.6em}.ranges a[aria-current]{font-weight:bold;text-decoration:none;color:#222}
.legend span{margin-right:1em}.legend .sw{display:inline-block;width:.8em;height:.8em;margin-right:.3em;vertical-align:middle}
.sw.processed{background:#3b9c4a}.sw.failed{background:#d23c3c}dl.row{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}dl.row dt{font-weight:bold}
.confirm{border:2px solid #d9a400;background:#fffbe8;padding:1em;max-width:50em}
`;
