import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type pg from "pg";
import { SESSION_COOKIE, SESSION_TTL_SECONDS, type Session, SessionSigner, parseCookies, safeEqual } from "./auth.ts";
import { type JobDetail, type JobFilters, type JobSource, JOB_SOURCES, LIST_STATUSES, type ListStatus, type ListedJob, cancel, getJob, listJobs, retry } from "./data.ts";
import { CSP, CSS, esc, liveRegion, page, time } from "./html.ts";
import { countLoginAttempt, forgiveLoginAttempt, loginClient } from "./login-limit.ts";
import { loadOverview, renderOverview } from "./overview.ts";
import { isUuid } from "../core/params.ts";
import { countFailedMessages, listFailedMessages, resendAllFailedMessages, resendFailedMessages } from "../messaging/failed.ts";
import { MESSAGES_SHOWN, type MessageFilters, messageFiltersOf, messagesPage, messagesQuery, presentMessage, retriedText, shopIdOf } from "./messages.ts";
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
const JOB_GONE = "<p>No such job (it may have finished and been removed from the queue).</p>";
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
  };
}

/** `?refresh=N`: seconds between live refreshes, 1 to 300. */
function refreshOf(query: unknown): number {
  return Math.min(300, Math.max(1, Math.trunc(Number(one(query, "refresh") ?? DEFAULT_REFRESH_SECONDS)) || DEFAULT_REFRESH_SECONDS));
}

function presentListed(job: ListedJob): Record<string, unknown> {
  return { ...job, run_at: job.run_at?.toISOString() ?? null, created_at: job.created_at.toISOString(), updated_at: job.updated_at.toISOString() };
}

const shopText = (job: { shop_id: string | null; shop_name: string | null }) => (job.shop_id ? `${job.shop_name ? `${job.shop_name} ` : ""}${job.shop_id}` : "-");

function jobRow(job: ListedJob): string {
  return `<tr data-job-id="${esc(job.id)}" data-source="${esc(job.source)}"><td class="id"><a href="/ops/jobs/${esc(job.source)}/${esc(encodeURIComponent(job.id))}">${esc(job.id)}</a></td>
<td class="source">${esc(job.source)}</td><td class="task">${esc(job.task)}</td><td class="status">${esc(job.status)}</td><td class="shop">${esc(shopText(job))}</td>
<td class="attempts">${esc(`${job.attempts}/${job.max_attempts}`)}</td><td class="created">${esc(job.created_at.toISOString())}</td><td class="error">${esc(job.last_error ?? "")}</td></tr>`;
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

function jobsTable(jobs: ListedJob[]): string {
  return `<table id="jobs"><thead><tr><th>id</th><th>source</th><th>task</th><th>status</th><th>shop</th><th>attempts</th><th>created</th><th>last error</th></tr></thead>
<tbody>${jobs.map(jobRow).join("\n")}</tbody></table>`;
}

/** The filters as a query string (the live list's fragment URL keeps them). */
function filterQuery(filters: JobFilters): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries({ status: filters.status, source: filters.source, task: filters.task, shop: filters.shop })) {
    if (value !== undefined) query.set(name, value);
  }
  const text = query.toString();
  return text ? `?${text}` : "";
}

function jobsPage(jobs: ListedJob[], filters: JobFilters, refresh: number): string {
  const options = ["", ...LIST_STATUSES]
    .map((s) => `<option value="${esc(s)}"${filters.status === s || (!filters.status && s === "") ? " selected" : ""}>${esc(s || "any")}</option>`)
    .join("");
  return `<form id="job-filters" method="get" action="/ops/jobs">
<label>Status <select name="status">${options}</select></label>
<label>Task <input name="task" value="${esc(filters.task ?? "")}"></label>
<label>Shop <input name="shop" value="${esc(filters.shop ?? "")}" placeholder="id or name"></label>
<input type="hidden" name="refresh" value="${esc(refresh)}">
<button type="submit">Filter</button></form>
${liveRegion("jobs-live", `/ops/fragments/jobs${filterQuery(filters)}`, refresh, jobsTable(jobs))}`;
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

function jobDetail(job: JobDetail, csrf: string): string {
  const base = `/ops/jobs/${esc(job.source)}/${esc(encodeURIComponent(job.id))}`;
  const errors = job.errors.length ? `<ol>${job.errors.map((e) => `<li>${esc(errorText(e))}</li>`).join("")}</ol>` : "<p>No errors.</p>";
  const attempts = `<table id="attempts"><tbody>
<tr><th>attempts</th><td>${esc(`${job.attempts}/${job.max_attempts}`)}</td></tr>
<tr><th>run_at</th><td>${esc(time(job.run_at))}</td></tr>
<tr><th>locked_by</th><td>${esc(job.locked_by ?? "-")}</td></tr>
<tr><th>created_at</th><td>${esc(time(job.created_at))}</td></tr>
<tr><th>started_at</th><td>${esc(time(job.started_at))}</td></tr>
<tr><th>finished_at</th><td>${esc(time(job.finished_at))}</td></tr>
<tr><th>updated_at</th><td>${esc(time(job.updated_at))}</td></tr>
${job.processed === null ? "" : `<tr><th>processed/total</th><td>${esc(`${job.processed}/${job.total ?? "-"}`)}</td></tr>`}
${job.app_job_id ? `<tr><th>app job</th><td><a id="app-job" href="/ops/jobs/app/${esc(job.app_job_id)}">${esc(job.app_job_id)}</a> (retry it there)</td></tr>` : ""}
${job.queue_row ? `<tr><th>queue row</th><td><a href="/ops/jobs/queue/${esc(job.queue_row.id)}">${esc(job.queue_row.id)}</a> (attempts ${esc(`${job.queue_row.attempts}/${job.queue_row.max_attempts}`)})</td></tr>` : ""}
</tbody></table>`;
  const action = (name: "retry" | "cancel", label: string, enabled: boolean) =>
    `<form id="${name}" method="post" action="${base}/${name}" class="inline${enabled ? "" : " hidden"}"${enabled ? "" : " hidden"}><input type="hidden" name="csrf" value="${esc(csrf)}"><button type="submit">${label}</button></form>`;
  return `<p>Source: ${esc(job.source)} · Task: <span id="job-task">${esc(job.task)}</span> · Shop: <span id="job-shop">${esc(shopText(job))}</span></p>
<p>Status: <strong id="job-status">${esc(job.status)}</strong></p>
${action("retry", "Retry", job.can_retry)} ${action("cancel", "Cancel", job.can_cancel)}
<h2>Attempts</h2>${attempts}
<h2>Errors</h2><div id="errors">${errors}</div>
${job.result === null || job.result === undefined ? "" : `<h2>Result</h2><pre id="result">${esc(pretty(job.result))}</pre>`}
<h2>Payload</h2><pre id="payload">${esc(pretty(job.payload))}</pre>`;
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
    const body = liveRegion("overview-live", "/ops/fragments/overview", refreshOf(request.query), renderOverview(await loadOverview(options.pool)));
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

  app.get("/ops/jobs", async (request, reply) => {
    const auth = await pageSession(request, reply);
    if (!auth) return reply;
    const filters = filtersOf(request.query);
    if (typeof filters === "string") return html(reply, 400, page({ title: "Jobs", body: `<p>${esc(filters)}</p>`, csrf: auth.csrf }));
    const jobs = await listJobs(options.pool, filters);
    return html(reply, 200, page({ title: "Jobs", body: jobsPage(jobs, filters, refreshOf(request.query)), csrf: auth.csrf, flash: takeFlash(request, reply) }));
  });
  app.get("/ops/fragments/jobs", async (request, reply) => {
    if (!(await fragmentSession(request, reply))) return reply;
    const filters = filtersOf(request.query);
    if (typeof filters === "string") return html(reply, 400, `<p>${esc(filters)}</p>`);
    return html(reply, 200, jobsTable(await listJobs(options.pool, filters)));
  });
  app.get("/ops/api/jobs", async (request, reply) => {
    if (!(await apiSession(request, reply))) return reply;
    const filters = filtersOf(request.query);
    if (typeof filters === "string") return reply.code(400).send({ errors: [filters] });
    return reply.send({ jobs: (await listJobs(options.pool, filters)).map(presentListed) });
  });

  /** The failed-messages filters of a request, its shop resolved to an id; a message when they are wrong. */
  const messageFilter = async (values: { shop?: string | undefined; area?: string | undefined }) => {
    const filters = messageFiltersOf(values);
    if (typeof filters === "string") return filters;
    const shop = await shopIdOf(options.pool, filters.shop);
    if (typeof shop === "string") return shop;
    return { filters, filter: { shopId: shop.shopId, area: filters.area } };
  };
  const failedPage = (auth: Authed, body: string, flash?: string) => page({ title: "Failed messages", body, csrf: auth.csrf, ...(flash ? { flash } : {}) });

  app.get("/ops/messages", async (request, reply) => {
    const auth = await pageSession(request, reply);
    if (!auth) return reply;
    const resolved = await messageFilter({ shop: one(request.query, "shop"), area: one(request.query, "area") });
    if (typeof resolved === "string") return html(reply, 400, failedPage(auth, `<p>${esc(resolved)}</p>`));
    const [messages, total] = await Promise.all([listFailedMessages(options.pool, { ...resolved.filter, limit: MESSAGES_SHOWN }), countFailedMessages(options.pool, resolved.filter)]);
    return html(reply, 200, failedPage(auth, messagesPage(messages, total, resolved.filters, auth.csrf), takeFlash(request, reply)));
  });
  app.get("/ops/api/messages", async (request, reply) => {
    if (!(await apiSession(request, reply))) return reply;
    const resolved = await messageFilter({ shop: one(request.query, "shop"), area: one(request.query, "area") });
    if (typeof resolved === "string") return reply.code(400).send({ errors: [resolved] });
    const [messages, total] = await Promise.all([listFailedMessages(options.pool, { ...resolved.filter, limit: MESSAGES_SHOWN }), countFailedMessages(options.pool, resolved.filter)]);
    return reply.send({ messages: messages.map(presentMessage), total });
  });
  // The ticked rows (id), or every failed message of the filters (scope=all): back to the list with how many were queued.
  app.post("/ops/messages/retry", async (request, reply) => {
    if (!(await postSession(request, reply))) return reply;
    const body = form(request.body);
    const hours = options.sendRetryHours ?? DEFAULT_SEND_RETRY_HOURS;
    const resolved = await messageFilter({ shop: body.get("shop") ?? undefined, area: body.get("area") ?? undefined });
    let message: string;
    let filters: MessageFilters = {};
    if (typeof resolved === "string") {
      message = `Not retried: ${resolved}.`;
    } else {
      filters = resolved.filters;
      if (body.get("scope") === "all") {
        message = retriedText(await resendAllFailedMessages(options.pool, resolved.filter, hours), resolved.filter.shopId === undefined);
      } else {
        const ids = [...new Set(body.getAll("id").filter(isUuid))];
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
