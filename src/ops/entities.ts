import type { Db } from "../core/db.ts";
import { isUuid } from "../core/params.ts";
import { type ListedJob, listJobsPage } from "./data.ts";
import { badge, esc, when } from "./html.ts";

/**
 * The console's pages of the things jobs are about (decision 0251): a shop, an offer, an order, a
 * signup and a message, each with its row, its links and its recent jobs; and the messages of
 * both areas as one list (failed ones, or a search by id, recipient or error text).
 */

export const ENTITY_KINDS = ["shops", "offers", "orders", "signups", "messages"] as const;
export type EntityKind = (typeof ENTITY_KINDS)[number];

/** A payload field naming a thing the console has a page of. */
const PAYLOAD_LINKS: Record<string, EntityKind> = {
  shop_id: "shops",
  offer_id: "offers",
  order_id: "orders",
  signup_id: "signups",
  ledger_id: "messages",
  notification_id: "messages",
  message_id: "messages",
};

export const entityHref = (kind: EntityKind, id: string) => `/ops/${kind}/${encodeURIComponent(id)}`;

/** The payload as pretty JSON, escaped, each id of a thing the console has a page of as a link to it. */
export function linkedPayload(payload: unknown): string {
  const text = JSON.stringify(payload ?? null, null, 2);
  return text
    .split("\n")
    .map((line) => {
      const match = /^(\s*)"([a-z_]+)": "([0-9a-fA-F-]{36})"(,?)$/.exec(line);
      const kind = match ? PAYLOAD_LINKS[match[2] ?? ""] : undefined;
      if (!match || !kind || !isUuid(match[3] ?? "")) return esc(line);
      const [, indent, field, id, comma] = match as unknown as [string, string, string, string, string];
      return `${esc(indent)}"${esc(field)}": "<a class="payload-link" data-field="${esc(field)}" href="${esc(entityHref(kind, id))}">${esc(id)}</a>"${esc(comma)}`;
    })
    .join("\n");
}

/** The links of a payload's ids, for the job page's summary. */
export function payloadRefs(payload: unknown): { field: string; kind: EntityKind; id: string }[] {
  if (typeof payload !== "object" || payload === null) return [];
  return Object.entries(payload as Record<string, unknown>).flatMap(([field, value]) => {
    const kind = PAYLOAD_LINKS[field];
    return kind && typeof value === "string" && isUuid(value) ? [{ field, kind, id: value }] : [];
  });
}

export const shopLink = (shopId: string | null, name: string | null) =>
  shopId ? `<a class="shop-link" href="${esc(entityHref("shops", shopId))}">${esc(`${name ? `${name} ` : ""}${shopId}`)}</a>` : "-";

export interface Message {
  id: string;
  area: "back_in_stock" | "preorders";
  shop_id: string;
  shop_name: string;
  stage: string;
  channel: string;
  recipient: string;
  status: string;
  attempts: number;
  error: string | null;
  created_at: Date;
  signup_id: string | null;
  order_id: string | null;
  offer_id: string | null;
}

const MESSAGES = `
  select l.id, 'back_in_stock' as area, l.shop_id, sh.name as shop_name, l.stage, s.channel, s.contact as recipient, l.status, l.attempts,
    l.last_error as error, l.created_at, l.signup_id, null::uuid as order_id, null::uuid as offer_id
  from bis_ledger l join bis_signups s on s.id = l.signup_id join shops sh on sh.id = l.shop_id
  union all
  select n.id, 'preorders', n.shop_id, sh.name, n.stage, n.channel, n.recipient, n.status, n.attempts, n.last_error, n.created_at, null, n.order_id, n.offer_id
  from preorder_notifications n join shops sh on sh.id = n.shop_id`;

export interface MessageQuery {
  status?: string | undefined;
  shopId?: string | undefined;
  area?: string | undefined;
  /** An id (message, signup, order), or text in the recipient or the error. */
  q?: string | undefined;
  signupId?: string | undefined;
  orderId?: string | undefined;
  limit: number;
  offset: number;
}

/** Messages of both areas, newest first, filtered; and how many match in all. */
export async function listMessages(db: Db, query: MessageQuery): Promise<{ messages: Message[]; total: number }> {
  const q = query.q?.trim() || null;
  const { rows } = await db.query<Message & { total: number }>(
    `select *, count(*) over ()::int as total from (${MESSAGES}) m
     where ($1::text is null or m.status = $1) and ($2::uuid is null or m.shop_id = $2) and ($3::text is null or m.area = $3)
       and ($4::text is null or m.id::text = lower($4) or m.signup_id::text = lower($4) or m.order_id::text = lower($4)
            or strpos(lower(m.recipient), lower($4)) > 0 or strpos(lower(coalesce(m.error, '')), lower($4)) > 0)
       and ($5::uuid is null or m.signup_id = $5) and ($6::uuid is null or m.order_id = $6)
     order by m.created_at desc, m.id limit $7 offset $8`,
    [query.status ?? null, query.shopId ?? null, query.area ?? null, q, query.signupId ?? null, query.orderId ?? null, query.limit, query.offset],
  );
  return { messages: rows.map(({ total: _t, ...m }) => m), total: rows[0]?.total ?? 0 };
}

/** A message's row links: its signup or order and offer, and its send job (a search of the jobs for its id). */
export function messageLinks(m: Message): string {
  const links = [
    m.signup_id ? `<a class="signup-link" href="${esc(entityHref("signups", m.signup_id))}">signup</a>` : "",
    m.order_id ? `<a class="order-link" href="${esc(entityHref("orders", m.order_id))}">order</a>` : "",
    m.offer_id ? `<a class="offer-link" href="${esc(entityHref("offers", m.offer_id))}">offer</a>` : "",
    `<a class="job-link" href="${esc(`/ops/jobs?source=all&q=${encodeURIComponent(m.id)}`)}">jobs</a>`,
  ];
  return links.filter(Boolean).join(" ");
}

export function messageRowsTable(id: string, messages: Message[]): string {
  const body = messages.length
    ? messages
        .map(
          (m) => `<tr data-message-id="${esc(m.id)}" data-area="${esc(m.area)}"><td class="id"><a href="${esc(entityHref("messages", m.id))}">${esc(m.id)}</a></td><td class="area">${esc(m.area)}</td>
<td class="status">${badge(m.status)}</td><td class="shop">${shopLink(m.shop_id, m.shop_name)}</td><td class="stage">${esc(m.stage)}</td><td class="recipient">${esc(m.recipient)}</td>
<td class="created">${when(m.created_at)}</td><td class="error">${esc(m.error ?? "")}</td><td class="links">${messageLinks(m)}</td></tr>`,
        )
        .join("\n")
    : '<tr class="empty"><td colspan="9">No messages.</td></tr>';
  return `<table id="${esc(id)}"><thead><tr><th>id</th><th>area</th><th>status</th><th>shop</th><th>stage</th><th>recipient</th><th>created</th><th>error</th><th>links</th></tr></thead><tbody>${body}</tbody></table>`;
}

/** A row as a definition list, its values escaped (dates relative with the exact time on hover). */
function rowList(row: Record<string, unknown>): string {
  return `<dl class="row" id="entity-row">${Object.entries(row)
    .map(([name, value]) => `<dt>${esc(name)}</dt><dd data-field="${esc(name)}">${value instanceof Date ? when(value) : name === "status" || name === "sync_status" ? badge(value as string) : esc(typeof value === "object" && value !== null ? JSON.stringify(value) : value ?? "-")}</dd>`)
    .join("")}</dl>`;
}

function jobsList(jobs: ListedJob[]): string {
  const body = jobs.length
    ? jobs
        .map(
          (j) => `<tr data-job-id="${esc(j.id)}" data-source="${esc(j.source)}"><td><a href="/ops/jobs/${esc(j.source)}/${esc(encodeURIComponent(j.id))}">${esc(j.id)}</a></td><td>${esc(j.source)}</td><td>${esc(j.task)}</td><td class="status">${badge(j.status)}</td><td>${when(j.created_at)}</td><td>${esc(j.last_error ?? "")}</td></tr>`,
        )
        .join("\n")
    : '<tr class="empty"><td colspan="6">No jobs.</td></tr>';
  return `<table id="entity-jobs"><thead><tr><th>id</th><th>source</th><th>task</th><th>status</th><th>created</th><th>last error</th></tr></thead><tbody>${body}</tbody></table>`;
}

const SHOWN = 20;

/** An entity's page body, or undefined when there is no such row. */
export async function entityPage(db: Db, kind: EntityKind, id: string): Promise<{ title: string; body: string } | undefined> {
  if (!isUuid(id)) return undefined;
  const more = (href: string, label: string) => `<p><a class="more" href="${esc(href)}">${esc(label)}</a></p>`;
  if (kind === "shops") {
    // Never the access token or other secrets: the columns an operator needs.
    const { rows } = await db.query<Record<string, unknown>>(
      `select id, name, is_demo, default_locale, platform_domain, platform_connected_at, platform_uninstalled_at, created_at, updated_at,
         (select count(*)::int from preorder_offers o where o.shop_id = s.id and o.deleted_at is null) as offers,
         (select count(*)::int from bis_signups b where b.shop_id = s.id) as signups
       from shops s where id = $1`,
      [id],
    );
    const row = rows[0];
    if (!row) return undefined;
    const jobs = await listJobsPage(db, { shop: id, limit: SHOWN });
    const messages = await listMessages(db, { shopId: id, status: "failed", limit: SHOWN, offset: 0 });
    return {
      title: `Shop ${String(row.name)}`,
      body: `${rowList(row)}<h2>Recent jobs</h2>${jobsList(jobs.jobs)}${more(`/ops/jobs?source=all&shop=${id}`, `All ${jobs.total} job(s) of this shop`)}
<h2>Failed messages</h2>${messageRowsTable("entity-messages", messages.messages)}${more(`/ops/messages?shop=${id}`, `All ${messages.total} failed message(s) of this shop`)}`,
    };
  }
  if (kind === "messages") {
    const { messages } = await listMessages(db, { q: id, limit: 5, offset: 0 });
    const m = messages.find((x) => x.id === id);
    if (!m) return undefined;
    const jobs = await listJobsPage(db, { q: id, limit: SHOWN });
    return {
      title: `Message ${id}`,
      body: `<p>Shop: ${shopLink(m.shop_id, m.shop_name)} · Status: ${badge(m.status)} · ${messageLinks(m)}</p>${rowList({ ...m })}<h2>Its send jobs</h2>${jobsList(jobs.jobs)}`,
    };
  }
  const table = { offers: "preorder_offers", orders: "preorder_orders", signups: "bis_signups" }[kind];
  const columns = {
    offers: "id, shop_id, name, internal_name, status, sync_status, sync_last_error, sync_last_event, revision, synced_revision, synced_at, created_at, updated_at, deleted_at",
    orders: "id, shop_id, platform_order_id, name, email, status, financial_status, fulfillment_status, currency, total_price, created_at, updated_at",
    signups: "id, shop_id, variant_id, product_id, channel, contact, status, last_error, quantity, market_id, created_at, notified_at, updated_at",
  }[kind];
  const { rows } = await db.query<Record<string, unknown> & { shop_id: string }>(`select ${columns} from ${table} where id = $1`, [id]);
  const row = rows[0];
  if (!row) return undefined;
  const { rows: shops } = await db.query<{ name: string }>("select name from shops where id = $1", [row.shop_id]);
  const jobs = await listJobsPage(db, { q: id, limit: SHOWN });
  const messages = kind === "offers" ? undefined : await listMessages(db, { ...(kind === "signups" ? { signupId: id } : { orderId: id }), limit: SHOWN, offset: 0 });
  const title = { offers: "Offer", orders: "Order", signups: "Signup" }[kind];
  return {
    title: `${title} ${id}`,
    body: `<p>Shop: ${shopLink(row.shop_id, shops[0]?.name ?? null)}</p>${rowList(row)}
<h2>Jobs about it</h2>${jobsList(jobs.jobs)}${more(`/ops/jobs?source=all&q=${id}`, `All ${jobs.total} job(s) naming it`)}
${messages ? `<h2>Its messages</h2>${messageRowsTable("entity-messages", messages.messages)}` : ""}`,
  };
}
