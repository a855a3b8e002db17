import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type pg from "pg";
import { SESSION_COOKIE, SESSION_TTL_SECONDS, type Session, SessionSigner, parseCookies, safeEqual } from "./auth.ts";
import type { RecordedAttempt } from "./attempts.ts";
import { BULK_ACTIONS, BULK_MAX, type BulkAction, bulkTargets, runBulk } from "./bulk.ts";
import { type JobDetail, type JobFilters, type JobSource, JOB_SOURCES, LIST_STATUSES, type ListStatus, type ListedJob, cancel, getJob, listJobsPage, retry } from "./data.ts";
import { ENTITY_KINDS, type EntityKind, entityPage, linkedPayload, listMessages, messageRowsTable, payloadRefs, shopLink, entityHref } from "./entities.ts";
import { loadGraph, rangeOf, renderGraph } from "./graph.ts";
import { CSP, CSS, PER_PAGE, badge, statusClass, esc, liveRegion, page, pageOf, pager, when } from "./html.ts";
import { countLoginAttempt, forgiveLoginAttempt, loginClient } from "./login-limit.ts";
import { loadOverview, renderOverview } from "./overview.ts";
import { isUuid } from "../core/params.ts";
import { resendAllFailedMessages, resendFailedMessages } from "../messaging/failed.ts";
import { type MessageFilters, messageFiltersOf, messagesPage, messagesQuery, presentMessage, retriedText, shopIdOf } from "./messages.ts";
import { isSessionRevoked, revokeSession } from "./sessions.ts";
import { SCRIPT } from "./static.ts";

export interface OpsOptions {
  pool: pg.Pool;
  /** The operator token (OPERATOR_TOKEN or generated under DATA_DIR). */
  token: string;
  /** Cookies marked Secure (PUBLIC_URL is https). */
  secureCookies: boolean;
  /** PUBLIC_URL's origin, accepted as same-origin besides the request's own Host. */
  publicOrigin?: string | undefined;
  /** SEND_RETRY_HOURS: how long a message sent again from the console is retried (default 24, the configuration's). */
  sendRetryHours?: number | undefined;
  /** The clock login attempts are counted by, in ms since the epoch (tests set it); absent: the database's. */
  now?: (() => number) | undefined;
}

const FLASH_COOKIE = "ops_flash";
const JOB_GONE = "<p>No such job: not in the queue, and not in the finished-jobs history (kept JOB_RETENTION_DAYS).</p>";
const DEFAULT_REFRESH_SECONDS = 5;
const DEFAULT_SEND_RETRY_HOURS = 24;

interface Authed {
  session: Session;
  csrf: string;
}

function form(body: unknown): URLSearchParams {
  return new URLSearchParams(typeof body === "string" ? body : "");
}

function one(query: unknown, name: string): string | undefined {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  const first: unknown = Array.isArray(value) ? value[0] : value;
  return typeof first === "string" ? first : undefined;
}

function filtersOf(query: unknown): JobFilters | string {
  const status = one(query, "status") || undefined;
  if (status !== undefined && !(LIST_STATUSES as readonly string[]).includes(status)) return `status must be one of ${LIST_STATUSES.join(", ")}`;
  const source = one(query, "source") || undefined;
  if (source !== undefined && source !== "all" && !(JOB_SOURCES as readonly string[]).includes(source)) return "source must be app, queue or all";
  return {
    status: status as ListStatus | undefined,
    source: source === "all" ? undefined : (source as JobSource | undefined),
    task: one(query, "task")?.trim() || undefined,
    shop: one(query, "shop")?.trim() || undefined,
    q: one(query, "q")?.trim().slice(0, 200) || undefined,
  };
}

/** The filters as a page's query: `page` and the filters. */
function withPage(filters: JobFilters, pageNumber: number, perPage = PER_PAGE): JobFilters {
  return { ...filters, limit: perPage, offset: (pageNumber - 1) * perPage };
}

/** `?refresh=N`: seconds between live refreshes, 1 to 300. */
function refreshOf(query: unknown): number {
  return Math.min(300, Math.max(1, Math.trunc(Number(one(query, "refresh") ?? DEFAULT_REFRESH_SECONDS)) || DEFAULT_REFRESH_SECONDS));
}

function presentListed(job: ListedJob): Record<string, unknown> {
  return { ...job, run_at: job.run_at?.toISOString() ?? null, created_at: job.created_at.toISOString(), updated_at: job.updated_at.toISOString() };
}

function jobRow(job: ListedJob): string {
  return `<tr data-job-id="${esc(job.id)}" data-source="${esc(job.source)}"><td class="id"><a href="/ops/jobs/${esc(job.source)}/${esc(encodeURIComponent(job.id))}">${esc(job.id)}</a></td>
<td class="source">${esc(job.source)}</td><td class="task">${esc(job.task)}</td><td class="status">${badge(job.status)}</td><td class="shop">${shopLink(job.shop_id, job.shop_name)}</td>
<td class="attempts">${esc(`${job.attempts}/${job.max_attempts}`)}</td><td class="created">${when(job.created_at)}</td><td class="error">${esc(job.last_error ?? "")}</td></tr>`;
}

function loginPage(error?: string): string {
  return page({
    title: "Operator login",
    body: `<form id="login" method="post" action="/ops/login">
<label>Operator token <input type="password" name="token" autocomplete="current-password" required autofocus></label>
<button type="submit">Log in</button></form>
<p id="login-error" role="alert"${error ? "" : ' class="hidden"'}>${esc(error ?? "")}</p>`,
  });
}

function jobsTable(jobs: ListedJob[], filters: JobFilters, pageNumber: number, total: number): string {
  return `<table id="jobs"><thead><tr><th>id</th><th>source</th><th>task</th><th>status</th><th>shop</th><th>attempts</th><th>created</th><th>last error</th></tr></thead>
<tbody>${jobs.map(jobRow).join("\n")}</tbody></table>
${pager("jobs-pager", "/ops/jobs", filterParams(filters), pageNumber, total)}`;
}

/** The filters as query parameters (the live list's fragment URL, the pager and the bulk actions keep them). */
function filterParams(filters: JobFilters): URLSearchParams {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries({ status: filters.status, source: filters.source, task: filters.task, shop: filters.shop, q: filters.q })) {
    if (value !== undefined) query.set(name, value);
  }
  return query;
}

function filterQuery(filters: JobFilters, pageNumber = 1): string {
  const query = filterParams(filters);
  if (pageNumber > 1) query.set("page", String(pageNumber));
  const text = query.toString();
  return text ? `?${text}` : "";
}

/** The confirmation page of a bulk action on the list's filters. */
function bulkHref(action: BulkAction, filters: JobFilters): string {
  const query = filterParams(filters);
  query.set("action", action);
  return `/ops/jobs/bulk?${query.toString()}`;
}

function jobsPage(jobs: ListedJob[], total: number, filters: JobFilters, pageNumber: number, refresh: number): string {
  const options = ["", ...LIST_STATUSES]
    .map((s) => `<option value="${esc(s)}"${filters.status === s || (!filters.status && s === "") ? " selected" : ""}>${esc(s || "any")}</option>`)
    .join("");
  return `<form id="job-filters" method="get" action="/ops/jobs">
<label>Status <select name="status">${options}</select></label>
<label>Task <input name="task" value="${esc(filters.task ?? "")}"></label>
<label>Shop <input name="shop" value="${esc(filters.shop ?? "")}" placeholder="id or name"></label>
<label>Search <input name="q" value="${esc(filters.q ?? "")}" placeholder="payload id, recipient or error text"></label>
${filters.source ? `<input type="hidden" name="source" value="${esc(filters.source)}">` : ""}
<input type="hidden" name="refresh" value="${esc(refresh)}">
<button type="submit">Filter</button></form>
<p id="bulk-actions">Bulk, on the jobs these filters list: <a id="bulk-retry" href="${esc(bulkHref("retry", filters))}">Retry every failed one…</a>
<a id="bulk-cancel" href="${esc(bulkHref("cancel", filters))}">Cancel every queued, scheduled or failed one…</a> (each asks to confirm, with the count)</p>
${liveRegion("jobs-live", `/ops/fragments/jobs${filterQuery(filters, pageNumber)}`, refresh, jobsTable(jobs, filters, pageNumber, total))}`;
}

function pretty(value: unknown): string {
  return JSON.stringify(value ?? null, null, 2);
}

/** One recorded error: "[attempt N] at message", or its JSON. */
function errorText(error: unknown): string {
  if (typeof error !== "object" || error === null || !("message" in error)) return pretty(error);
  const { attempt, at, message } = error as { attempt?: unknown; at?: unknown; message: unknown };
  const parts = [typeof attempt === "number" ? `attempt ${attempt}` : "", typeof at === "string" ? at : "", typeof message === "string" ? message : pretty(message)];
  return parts.filter(Boolean).join(" · ");
}

/** Every recorded run, oldest first; a retry (the attempt number starting again) marked between runs. */
function attemptLog(attempts: RecordedAttempt[]): string {
  if (attempts.length === 0) return '<p id="attempt-log-empty">No run recorded yet.</p>';
  const rows: string[] = [];
  attempts.forEach((a, i) => {
    const previous = attempts[i - 1];
    if (previous && a.attempt <= previous.attempt) rows.push('<tr class="retry-mark"><td colspan="7">Retried: the attempts started again</td></tr>');
    rows.push(`<tr class="outcome-${esc(a.outcome)}" data-attempt="${esc(a.attempt)}" data-outcome="${esc(a.outcome)}"><td class="run">${esc(i + 1)}</td><td class="attempt">${esc(`${a.attempt}/${a.max_attempts}`)}</td>
<td class="started">${when(a.started_at)}</td><td class="finished">${when(a.finished_at)}</td><td class="outcome">${badge(a.outcome)}</td><td class="worker">${esc(a.worker_id ?? "-")}</td><td class="error">${esc(a.error ?? "")}</td></tr>`);
  });
  return `<table id="attempt-log"><thead><tr><th>run</th><th>attempt</th><th>started</th><th>finished</th><th>outcome</th><th>worker</th><th>error</th></tr></thead><tbody>${rows.join("\n")}</tbody></table>`;
}

function jobDetail(job: JobDetail, csrf: string): string {
  const base = `/ops/jobs/${esc(job.source)}/${esc(encodeURIComponent(job.id))}`;
  const errors = job.errors.length ? `<ol>${job.errors.map((e) => `<li>${esc(errorText(e))}</li>`).join("")}</ol>` : "<p>No errors.</p>";
  const attempts = `<table id="attempts"><tbody>
<tr><th>attempts</th><td>${esc(`${job.attempts}/${job.max_attempts}`)}</td></tr>
<tr><th>run_at</th><td>${when(job.run_at)}</td></tr>
<tr><th>locked_by</th><td>${esc(job.locked_by ?? "-")}</td></tr>
<tr><th>created_at</th><td>${when(job.created_at)}</td></tr>
<tr><th>started_at</th><td>${when(job.started_at)}</td></tr>
<tr><th>finished_at</th><td>${when(job.finished_at)}</td></tr>
<tr><th>updated_at</th><td>${when(job.updated_at)}</td></tr>
${job.processed === null ? "" : `<tr><th>processed/total</th><td>${esc(`${job.processed}/${job.total ?? "-"}`)}</td></tr>`}
${job.app_job_id ? `<tr><th>app job</th><td><a id="app-job" href="/ops/jobs/app/${esc(job.app_job_id)}">${esc(job.app_job_id)}</a> (retry it there)</td></tr>` : ""}
${job.queue_row ? `<tr><th>queue row</th><td><a href="/ops/jobs/queue/${esc(job.queue_row.id)}">${esc(job.queue_row.id)}</a> (attempts ${esc(`${job.queue_row.attempts}/${job.queue_row.max_attempts}`)})</td></tr>` : ""}
</tbody></table>`;
  const action = (name: "retry" | "cancel", label: string, enabled: boolean) =>
    `<form id="${name}" method="post" action="${base}/${name}" class="inline${enabled ? "" : " hidden"}"${enabled ? "" : " hidden"}><input type="hidden" name="csrf" value="${esc(csrf)}"><button type="submit">${label}</button></form>`;
  const refs = payloadRefs(job.payload);
  const about = refs.length
    ? `<p id="job-refs">About: ${refs.map((r) => `<a class="ref-link" data-field="${esc(r.field)}" href="${esc(entityHref(r.kind, r.id))}">${esc(r.field)} ${esc(r.id)}</a>`).join(" · ")}</p>`
    : "";
  return `<p>Source: ${esc(job.source)} · Task: <span id="job-task">${esc(job.task)}</span> · Shop: <span id="job-shop">${shopLink(job.shop_id, job.shop_name)}</span></p>
${about}
<p>Status: <span class="badge status-${esc(statusClass(job.status))}"><strong id="job-status">${esc(job.status)}</strong></span>${job.from_history ? ' <span id="from-history">(finished: graphile-worker no longer holds it; from the history, kept JOB_RETENTION_DAYS)</span>' : ""}</p>
${action("retry", "Retry", job.can_retry)} ${action("cancel", "Cancel", job.can_cancel)}
<h2>Attempts</h2>${attempts}
<h2>Every run</h2>${attemptLog(job.attempt_log)}
<h2>Errors</h2><div id="errors">${errors}</div>
${job.result === null || job.result === undefined ? "" : `<h2>Result</h2><pre id="result">${esc(pretty(job.result))}</pre>`}
<h2>Payload</h2><pre id="payload">${linkedPayload(job.payload)}</pre>`;
}

/** The operator console at /ops: server-rendered pages, JSON at /ops/api, behind the operator token. */
export function opsRoutes(app: FastifyInstance, options: OpsOptions, done: (error?: Error) => void): void {
  const signer = new SessionSigner(options.token);
  // Secure when the service's public URL is https, or when this request came over https (directly,
  // or through a proxy TRUST_PROXY names): behind TLS with PUBLIC_URL unset, the cookie still is.
  const cookie = (request: FastifyRequest, name: string, value: string, maxAge: number) =>
    `${name}=${value}; Path=/ops; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${options.secureCookies || request.protocol === "https" ? "; Secure" : ""}`;

  app.addHook("onSend", (_request, reply, payload, next) => {
    void reply
      .header("content-security-policy", CSP)
      .header("x-content-type-options", "nosniff")
      .header("x-frame-options", "DENY")
      .header("referrer-policy", "same-origin")
      .header("cache-control", "no-store");
    next(null, payload);
  });

  /** The request's session: signed, not expired, and not ended by a logout. */
  const authed = async (request: FastifyRequest): Promise<Authed | undefined> => {
    const session = signer.verify(parseCookies(request.headers.cookie).get(SESSION_COOKIE));
    if (!session || (await isSessionRevoked(options.pool, session.id))) return undefined;
    return { session, csrf: signer.csrf(session) };
  };

  const sameOrigin = (request: FastifyRequest): boolean => {
    const allowed = new Set<string>();
    // The Host the request came with, and the one a proxy named in TRUST_PROXY says the browser
    // used (X-Forwarded-Host: fastify's request.host), as a proxy may rewrite Host.
    for (const host of new Set([request.headers.host, request.host])) {
      if (!host) continue;
      allowed.add(`http://${host}`);
      allowed.add(`https://${host}`);
    }
    if (options.publicOrigin) allowed.add(options.publicOrigin);
    const origin = request.headers.origin;
    if (typeof origin === "string" && origin !== "null") return allowed.has(origin);
    const referer = request.headers.referer;
    if (typeof referer !== "string") return false;
    try {
      return allowed.has(new URL(referer).origin);
    } catch {
      return false;
    }
  };
  /**
   * A request a browser sent from another site's page: it names a foreign (or an opaque, "null")
   * origin. One naming none came from no page (a script, curl) and is not refused by this.
   */
  const crossSite = (request: FastifyRequest): boolean =>
    (request.headers.origin !== undefined || request.headers.referer !== undefined) && !sameOrigin(request);

  const html = (reply: FastifyReply, status: number, body: string) => reply.code(status).type("text/html; charset=utf-8").send(body);
  const toLogin = (reply: FastifyReply) => reply.code(303).header("location", "/ops/login").send();

  /** The session of a page request, or a redirect to the login page (undefined). */
  const pageSession = async (request: FastifyRequest, reply: FastifyReply): Promise<Authed | undefined> => {
    const auth = await authed(request);
    if (!auth) void toLogin(reply);
    return auth;
  };
  const apiSession = async (request: FastifyRequest, reply: FastifyReply): Promise<Authed | undefined> => {
    const auth = await authed(request);
    if (!auth) void reply.code(401).send({ errors: ["Operator session required: log in at /ops/login"] });
    return auth;
  };
  /** A live region's session; without one, 401 (the script then goes to the login page). */
  const fragmentSession = async (request: FastifyRequest, reply: FastifyReply): Promise<Authed | undefined> => {
    const auth = await authed(request);
    if (!auth) void html(reply, 401, "<p>Operator session required: log in at /ops/login</p>");
    return auth;
  };
  /** A POST's session, CSRF token and origin; else 403 (or the login page without a session). */
  const postSession = async (request: FastifyRequest, reply: FastifyReply): Promise<Authed | undefined> => {
    const auth = await authed(request);
    if (!auth) {
      void html(reply, 403, page({ title: "Forbidden", body: "<p>No operator session: <a href=\"/ops/login\">log in</a>.</p>" }));
      return undefined;
    }
    const given = form(request.body).get("csrf") ?? "";
    if (!sameOrigin(request) || !safeEqual(given, auth.csrf)) {
      void html(reply, 403, page({ title: "Forbidden", body: "<p>Refused: the request did not come from this console (CSRF token or origin missing or wrong).</p>", csrf: auth.csrf }));
      return undefined;
    }
    return auth;
  };
  /** The flash message set by the last POST, cleared once shown. */
  const takeFlash = (request: FastifyRequest, reply: FastifyReply): string | undefined => {
    const value = parseCookies(request.headers.cookie).get(FLASH_COOKIE);
    if (!value) return undefined;
    void reply.header("set-cookie", cookie(request, FLASH_COOKIE, "", 0));
    try {
      return Buffer.from(value, "base64url").toString("utf8").slice(0, 500);
    } catch {
      return undefined;
    }
  };

  app.get("/ops/static/ops.js", (_request, reply) => reply.type("text/javascript; charset=utf-8").send(SCRIPT));
  app.get("/ops/static/ops.css", (_request, reply) => reply.type("text/css; charset=utf-8").send(CSS));

  app.get("/ops/login", async (request, reply) => {
    if (await authed(request)) return reply.code(303).header("location", "/ops").send();
    return html(reply, 200, loginPage());
  });
  app.post("/ops/login", async (request, reply) => {
    // Before the attempt is counted: a page on another site must not spend the operator's budget
    // (ten cross-site posts would lock them out). A script logging in for /ops/api sends no origin.
    if (crossSite(request)) return html(reply, 403, loginPage("Refused: the login did not come from this console's page."));
    const lockedFor = await countLoginAttempt(options.pool, loginClient(request.ip), options.now);
    if (lockedFor !== undefined) {
      const minutes = Math.ceil(lockedFor / 60);
      return html(reply.header("retry-after", String(lockedFor)), 429, loginPage(`Too many wrong tokens from this address: try again in ${minutes} minute(s).`));
    }
    const token = form(request.body).get("token") ?? "";
    if (!token || !safeEqual(token, options.token)) return html(reply, 401, loginPage("Wrong operator token."));
    await forgiveLoginAttempt(options.pool, loginClient(request.ip), options.now);
    const { cookie: value } = signer.issue();
    return reply.code(303).header("set-cookie", cookie(request, SESSION_COOKIE, value, SESSION_TTL_SECONDS)).header("location", "/ops").send();
  });
  app.post("/ops/logout", async (request, reply) => {
    const auth = await postSession(request, reply);
    if (!auth) return reply;
    await revokeSession(options.pool, auth.session);
    return reply.code(303).header("set-cookie", cookie(request, SESSION_COOKIE, "", 0)).header("location", "/ops/login").send();
  });

  app.get("/ops", async (request, reply) => {
    const auth = await pageSession(request, reply);
    if (!auth) return reply;
    const task = one(request.query, "task")?.trim() || undefined;
    const [overview, graph] = await Promise.all([loadOverview(options.pool), loadGraph(options.pool, rangeOf(one(request.query, "range")), task)]);
    // The graph is drawn once per page load (its range selector reloads it); the tables below refresh live.
    const body = `${renderGraph(graph)}\n${liveRegion("overview-live", "/ops/fragments/overview", refreshOf(request.query), renderOverview(overview))}`;
    return html(reply, 200, page({ title: "Overview", body, csrf: auth.csrf, flash: takeFlash(request, reply) }));
  });
  app.get("/ops/fragments/overview", async (request, reply) => {
    if (!(await fragmentSession(request, reply))) return reply;
    return html(reply, 200, renderOverview(await loadOverview(options.pool)));
  });
  app.get("/ops/api/overview", async (request, reply) => {
    if (!(await apiSession(request, reply))) return reply;
    return reply.send(await loadOverview(options.pool));
  });
  app.get("/ops/api/graph", async (request, reply) => {
    if (!(await apiSession(request, reply))) return reply;
    return reply.send(await loadGraph(options.pool, rangeOf(one(request.query, "range")), one(request.query, "task")?.trim() || undefined));
  });

  app.get("/ops/jobs", async (request, reply) => {
    const auth = await pageSession(request, reply);
    if (!auth) return reply;
    const filters = filtersOf(request.query);
    if (typeof filters === "string") return html(reply, 400, page({ title: "Jobs", body: `<p>${esc(filters)}</p>`, csrf: auth.csrf }));
    const pageNumber = pageOf(one(request.query, "page"));
    const { jobs, total } = await listJobsPage(options.pool, withPage(filters, pageNumber));
    return html(reply, 200, page({ title: "Jobs", body: jobsPage(jobs, total, filters, pageNumber, refreshOf(request.query)), csrf: auth.csrf, flash: takeFlash(request, reply) }));
  });
  app.get("/ops/fragments/jobs", async (request, reply) => {
    if (!(await fragmentSession(request, reply))) return reply;
    const filters = filtersOf(request.query);
    if (typeof filters === "string") return html(reply, 400, `<p>${esc(filters)}</p>`);
    const pageNumber = pageOf(one(request.query, "page"));
    const { jobs, total } = await listJobsPage(options.pool, withPage(filters, pageNumber));
    return html(reply, 200, jobsTable(jobs, filters, pageNumber, total));
  });
  app.get("/ops/api/jobs", async (request, reply) => {
    if (!(await apiSession(request, reply))) return reply;
    const filters = filtersOf(request.query);
    if (typeof filters === "string") return reply.code(400).send({ errors: [filters] });
    const perPage = Math.min(1000, Math.max(1, Math.trunc(Number(one(request.query, "per_page") ?? 200)) || 200));
    const pageNumber = pageOf(one(request.query, "page"));
    const { jobs, total } = await listJobsPage(options.pool, withPage(filters, pageNumber, perPage));
    return reply.send({ jobs: jobs.map(presentListed), total, page: pageNumber, per_page: perPage });
  });

  // Bulk actions on the jobs a filter lists: GET shows the count and asks to confirm; the POST
  // (CSRF token, same origin) acts, unless the count changed since, when it asks again.
  const bulkOf = (values: { get(name: string): string | null | undefined }): { action: BulkAction; filters: JobFilters } | string => {
    const action = values.get("action") ?? "";
    if (!(BULK_ACTIONS as readonly string[]).includes(action)) return `action must be one of ${BULK_ACTIONS.join(", ")}`;
    const query: Record<string, string> = {};
    for (const name of ["status", "source", "task", "shop", "q"]) {
      const value = values.get(name);
      if (value) query[name] = value;
    }
    const filters = filtersOf(query);
    return typeof filters === "string" ? filters : { action: action as BulkAction, filters };
  };
  const confirmPage = (csrf: string, action: BulkAction, filters: JobFilters, count: number, more: boolean, note = "") => {
    const what = action === "retry" ? "retry (queued again with fresh attempts)" : "cancel (app jobs cancelled, queue jobs removed and kept in the history as cancelled)";
    const hidden = [...filterParams(filters).entries()].map(([name, value]) => `<input type="hidden" name="${esc(name)}" value="${esc(value)}">`).join("");
    const filterText = [...filterParams(filters).entries()].map(([name, value]) => `${name}=${value}`).join(", ") || "no filter: every job";
    return `<div class="confirm" id="bulk-confirm">${note ? `<p id="bulk-note">${esc(note)}</p>` : ""}
<p>This will ${esc(what)} <strong id="bulk-count">${esc(count)}</strong> job(s)${more ? ` (the newest ${BULK_MAX}; run it again for the rest)` : ""}, listed by: ${esc(filterText)}.
${action === "retry" ? "Only failed jobs are retried" : "Only queued, scheduled and failed jobs are cancelled"}; a running one, a queue row of an app job and a finished job in the history are left alone.</p>
<form id="bulk-form" method="post" action="/ops/jobs/bulk"><input type="hidden" name="csrf" value="${esc(csrf)}"><input type="hidden" name="action" value="${esc(action)}">
<input type="hidden" name="count" value="${esc(count)}">${hidden}
<button type="submit"${count === 0 ? " disabled" : ""}>${esc(action === "retry" ? `Retry ${count} job(s)` : `Cancel ${count} job(s)`)}</button> <a href="/ops/jobs${esc(filterQuery(filters))}">Back, do nothing</a></form></div>`;
  };
  app.get("/ops/jobs/bulk", async (request, reply) => {
    const auth = await pageSession(request, reply);
    if (!auth) return reply;
    const bulk = bulkOf({ get: (name) => one(request.query, name) });
    if (typeof bulk === "string") return html(reply, 400, page({ title: "Bulk action", body: `<p>${esc(bulk)}</p>`, csrf: auth.csrf }));
    const { targets, more } = await bulkTargets(options.pool, bulk.action, bulk.filters);
    return html(reply, 200, page({ title: `Bulk ${bulk.action}`, body: confirmPage(auth.csrf, bulk.action, bulk.filters, targets.length, more), csrf: auth.csrf }));
  });
  app.post("/ops/jobs/bulk", async (request, reply) => {
    const auth = await postSession(request, reply);
    if (!auth) return reply;
    const body = form(request.body);
    const bulk = bulkOf(body);
    if (typeof bulk === "string") return html(reply, 400, page({ title: "Bulk action", body: `<p>${esc(bulk)}</p>`, csrf: auth.csrf }));
    const { targets, more } = await bulkTargets(options.pool, bulk.action, bulk.filters);
    const confirmed = Number(body.get("count"));
    if (confirmed !== targets.length) {
      const note = `The count changed since you confirmed (${Number.isFinite(confirmed) ? confirmed : "none"} then, ${targets.length} now): confirm again.`;
      return html(reply, 409, page({ title: `Bulk ${bulk.action}`, body: confirmPage(auth.csrf, bulk.action, bulk.filters, targets.length, more, note), csrf: auth.csrf }));
    }
    const outcome = await runBulk(options.pool, bulk.action, targets);
    const verb = bulk.action === "retry" ? "queued again" : "cancelled";
    const message = `${outcome.done} job(s) ${verb}${outcome.skipped ? `; ${outcome.skipped} had changed meanwhile and were left alone` : ""}.`;
    return reply
      .code(303)
      .header("set-cookie", cookie(request, FLASH_COOKIE, Buffer.from(message, "utf8").toString("base64url"), 60))
      .header("location", `/ops/jobs${filterQuery({ ...bulk.filters, status: undefined })}`)
      .send();
  });

  // Search: jobs (payload ids, recipient, error text) and messages (id, recipient, reason) at once.
  app.get("/ops/search", async (request, reply) => {
    const auth = await pageSession(request, reply);
    if (!auth) return reply;
    const q = one(request.query, "q")?.trim().slice(0, 200) || undefined;
    const pageNumber = pageOf(one(request.query, "page"));
    const searchForm = `<form id="search" method="get" action="/ops/search"><label>Search <input name="q" value="${esc(q ?? "")}" placeholder="payload id, recipient or error text" autofocus></label> <button type="submit">Search</button></form>`;
    if (!q) return html(reply, 200, page({ title: "Search", body: searchForm, csrf: auth.csrf }));
    const [jobs, messages] = await Promise.all([
      listJobsPage(options.pool, withPage({ q }, pageNumber)),
      listMessages(options.pool, { q, limit: PER_PAGE, offset: (pageNumber - 1) * PER_PAGE }),
    ]);
    const query = new URLSearchParams({ q });
    const body = `${searchForm}
<h2>Jobs <span class="count" id="search-jobs-count">${esc(jobs.total)}</span></h2>${jobsTable(jobs.jobs, { q }, pageNumber, jobs.total).replace('id="jobs-pager"', 'id="search-jobs-pager"').replace(/href="\/ops\/jobs\?/g, 'href="/ops/search?')}
<h2>Messages <span class="count" id="search-messages-count">${esc(messages.total)}</span></h2>${messageRowsTable("search-messages", messages.messages)}
${pager("search-messages-pager", "/ops/search", query, pageNumber, messages.total)}`;
    return html(reply, 200, page({ title: `Search: ${q}`, body, csrf: auth.csrf }));
  });

  for (const kind of ENTITY_KINDS) {
    app.get(`/ops/${kind}/:id`, async (request, reply) => {
      const auth = await pageSession(request, reply);
      if (!auth) return reply;
      const { id } = request.params as { id: string };
      const found = await entityPage(options.pool, kind satisfies EntityKind, id.toLowerCase());
      if (!found) return html(reply, 404, page({ title: "Not found", body: `<p>No such ${esc(kind.replace(/s$/, ""))}.</p>`, csrf: auth.csrf }));
      return html(reply, 200, page({ title: found.title, body: found.body, csrf: auth.csrf }));
    });
  }

  /** The failed-messages filters of a request, its shop resolved to an id; a message when they are wrong. */
  const messageFilter = async (values: { shop?: string | undefined; area?: string | undefined; q?: string | undefined }) => {
    const filters = messageFiltersOf(values);
    if (typeof filters === "string") return filters;
    const shop = await shopIdOf(options.pool, filters.shop);
    if (typeof shop === "string") return shop;
    return { filters, filter: { shopId: shop.shopId, area: filters.area } };
  };
  const failedPage = (auth: Authed, body: string, flash?: string) => page({ title: "Failed messages", body, csrf: auth.csrf, ...(flash ? { flash } : {}) });
  const failedOf = (resolved: { filters: MessageFilters; filter: { shopId?: string | undefined; area?: string | undefined } }, pageNumber: number, perPage = PER_PAGE) =>
    listMessages(options.pool, { status: "failed", shopId: resolved.filter.shopId, area: resolved.filter.area, q: resolved.filters.q, limit: perPage, offset: (pageNumber - 1) * perPage });

  app.get("/ops/messages", async (request, reply) => {
    const auth = await pageSession(request, reply);
    if (!auth) return reply;
    const resolved = await messageFilter({ shop: one(request.query, "shop"), area: one(request.query, "area"), q: one(request.query, "q") });
    if (typeof resolved === "string") return html(reply, 400, failedPage(auth, `<p>${esc(resolved)}</p>`));
    const pageNumber = pageOf(one(request.query, "page"));
    const { messages, total } = await failedOf(resolved, pageNumber);
    return html(reply, 200, failedPage(auth, messagesPage(messages, total, resolved.filters, pageNumber, auth.csrf), takeFlash(request, reply)));
  });
  app.get("/ops/api/messages", async (request, reply) => {
    if (!(await apiSession(request, reply))) return reply;
    const resolved = await messageFilter({ shop: one(request.query, "shop"), area: one(request.query, "area"), q: one(request.query, "q") });
    if (typeof resolved === "string") return reply.code(400).send({ errors: [resolved] });
    const pageNumber = pageOf(one(request.query, "page"));
    const { messages, total } = await failedOf(resolved, pageNumber, 200);
    return reply.send({ messages: messages.map(presentMessage), total });
  });
  // The ticked rows (id), or every failed message of the filters (scope=all): back to the list with how many were queued.
  app.post("/ops/messages/retry", async (request, reply) => {
    if (!(await postSession(request, reply))) return reply;
    const body = form(request.body);
    const hours = options.sendRetryHours ?? DEFAULT_SEND_RETRY_HOURS;
    const resolved = await messageFilter({ shop: body.get("shop") ?? undefined, area: body.get("area") ?? undefined, q: body.get("q") ?? undefined });
    let message: string;
    let filters: MessageFilters = {};
    if (typeof resolved === "string") {
      message = `Not retried: ${resolved}.`;
    } else {
      filters = resolved.filters;
      if (body.get("scope") === "all" && resolved.filters.q === undefined) {
        message = retriedText(await resendAllFailedMessages(options.pool, resolved.filter, hours), resolved.filter.shopId === undefined);
      } else {
        // Retry all of a search: the messages it matches, by id.
        const ids =
          body.get("scope") === "all"
            ? (await failedOf(resolved, 1, 10_000)).messages.map((m) => m.id)
            : [...new Set(body.getAll("id").filter(isUuid))];
        message = ids.length === 0 ? "No message selected: tick the rows to retry, or use Retry all." : retriedText(await resendFailedMessages(options.pool, { ...resolved.filter, ids, limit: ids.length }, hours), false);
      }
    }
    return reply
      .code(303)
      .header("set-cookie", cookie(request, FLASH_COOKIE, Buffer.from(message, "utf8").toString("base64url"), 60))
      .header("location", `/ops/messages${messagesQuery(filters)}`)
      .send();
  });

  const sourceOf = (params: unknown): { source: JobSource; id: string } | undefined => {
    const { source, id } = params as { source: string; id: string };
    return (JOB_SOURCES as readonly string[]).includes(source) ? { source: source as JobSource, id } : undefined;
  };

  app.get("/ops/jobs/:source/:id", async (request, reply) => {
    const auth = await pageSession(request, reply);
    if (!auth) return reply;
    const ref = sourceOf(request.params);
    const job = ref && (await getJob(options.pool, ref.source, ref.id));
    if (!job) return html(reply, 404, page({ title: "Job not found", body: JOB_GONE, csrf: auth.csrf, flash: takeFlash(request, reply) }));
    const url = `/ops/fragments/jobs/${encodeURIComponent(job.source)}/${encodeURIComponent(job.id)}`;
    return html(reply, 200, page({ title: `Job ${job.id}`, body: liveRegion("job-live", url, refreshOf(request.query), jobDetail(job, auth.csrf)), csrf: auth.csrf, flash: takeFlash(request, reply) }));
  });
  app.get("/ops/fragments/jobs/:source/:id", async (request, reply) => {
    const auth = await fragmentSession(request, reply);
    if (!auth) return reply;
    const ref = sourceOf(request.params);
    const job = ref && (await getJob(options.pool, ref.source, ref.id));
    return job ? html(reply, 200, jobDetail(job, auth.csrf)) : html(reply, 404, JOB_GONE);
  });
  app.get("/ops/api/jobs/:source/:id", async (request, reply) => {
    if (!(await apiSession(request, reply))) return reply;
    const ref = sourceOf(request.params);
    const job = ref && (await getJob(options.pool, ref.source, ref.id));
    if (!job) return reply.code(404).send({ errors: ["Job not found"] });
    return reply.send({ job });
  });

  for (const [name, act] of [["retry", retry], ["cancel", cancel]] as const) {
    app.post(`/ops/jobs/:source/:id/${name}`, async (request, reply) => {
      if (!(await postSession(request, reply))) return reply;
      const ref = sourceOf(request.params);
      const outcome = ref ? await act(options.pool, ref.source, ref.id) : { ok: false, message: "Job not found." };
      const location = ref ? `/ops/jobs/${ref.source}/${encodeURIComponent(ref.id)}` : "/ops/jobs";
      return reply
        .code(303)
        .header("set-cookie", cookie(request, FLASH_COOKIE, Buffer.from(outcome.message, "utf8").toString("base64url"), 60))
        .header("location", location)
        .send();
    });
  }
  done();
}
