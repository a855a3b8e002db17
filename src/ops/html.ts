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
      : `<header><nav id="ops-nav"><a href="/ops">Overview</a> <a href="/ops/jobs">Jobs</a> <a href="/ops/messages">Failed messages</a></nav>
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
`;
