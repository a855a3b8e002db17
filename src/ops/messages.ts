import type { Db } from "../core/db.ts";
import { isUuid } from "../core/params.ts";
import { MESSAGE_AREAS, type MessageArea } from "../messaging/areas.ts";
import type { ResendResult } from "../messaging/failed.ts";
import { type Message, entityHref, messageLinks, shopLink } from "./entities.ts";
import { badge, esc, pager, when } from "./html.ts";

/**
 * The console's failed-messages view (/ops/messages): messages of both areas that failed for good
 * (src/messaging/failed.ts), by shop and area, searched by id, recipient or error text, a page at
 * a time, each with its reason and its links (signup, order, offer, send jobs), and a bulk retry.
 * Not a live region: a refresh would drop the operator's ticked rows.
 */

export interface MessageFilters {
  /** A shop's id, or its name (case-insensitive), as the jobs view takes it. */
  shop?: string | undefined;
  area?: MessageArea | undefined;
  /** A message, signup or order id, or text in the recipient or the reason. */
  q?: string | undefined;
}

export function messageFiltersOf(values: { shop?: string | undefined; area?: string | undefined; q?: string | undefined }): MessageFilters | string {
  const area = values.area?.trim() || undefined;
  if (area !== undefined && !(MESSAGE_AREAS as readonly string[]).includes(area)) return `area must be one of ${MESSAGE_AREAS.join(", ")}`;
  return { shop: values.shop?.trim() || undefined, area: area as MessageArea | undefined, q: values.q?.trim().slice(0, 200) || undefined };
}

/** The filter's shop as an id: itself when it is one, else the one shop of that name; a message when none or several. */
export async function shopIdOf(db: Db, shop: string | undefined): Promise<{ shopId?: string | undefined } | string> {
  if (shop === undefined) return {};
  const { rows } = await db.query<{ id: string }>("select id from shops where ($1::uuid is not null and id = $1::uuid) or lower(name) = lower($2) limit 2", [
    isUuid(shop) ? shop : null,
    shop,
  ]);
  if (rows.length === 0) return `shop: no shop with the id or name ${shop}`;
  if (rows.length > 1) return `shop: several shops are named ${shop}; give its id`;
  return { shopId: rows[0]?.id };
}

export function messagesQuery(filters: MessageFilters): string {
  const query = new URLSearchParams();
  if (filters.shop !== undefined) query.set("shop", filters.shop);
  if (filters.area !== undefined) query.set("area", filters.area);
  if (filters.q !== undefined) query.set("q", filters.q);
  const text = query.toString();
  return text ? `?${text}` : "";
}

export function presentMessage(message: Message): Record<string, unknown> {
  return { ...message, created_at: message.created_at.toISOString() };
}

/** The flash after a retry: how many of each area were queued, and for whom. */
export function retriedText(result: ResendResult, everyShop: boolean): string {
  const total = result.back_in_stock + result.preorders;
  if (total === 0) return "Nothing was queued: no selected message is failed any more.";
  return `Queued again: ${result.back_in_stock} back-in-stock and ${result.preorders} preorder message(s)${everyShop ? " of every shop" : ""}.`;
}

function row(m: Message): string {
  return `<tr data-message-id="${esc(m.id)}" data-area="${esc(m.area)}"><td><input type="checkbox" name="id" value="${esc(m.id)}" form="retry-messages" aria-label="select ${esc(m.id)}"></td>
<td class="id"><a href="${esc(entityHref("messages", m.id))}">${esc(m.id)}</a></td><td class="area">${esc(m.area)}</td><td class="status">${badge(m.status)}</td><td class="shop">${shopLink(m.shop_id, m.shop_name)}</td><td class="stage">${esc(m.stage)}</td>
<td class="channel">${esc(m.channel)}</td><td class="recipient">${esc(m.recipient)}</td><td class="attempts">${esc(m.attempts)}</td><td class="created">${when(m.created_at)}</td><td class="error">${esc(m.error ?? "")}</td><td class="links">${messageLinks(m)}</td></tr>`;
}

function messagesTable(messages: Message[]): string {
  const body = messages.length ? messages.map(row).join("\n") : `<tr class="empty"><td colspan="12">No failed messages.</td></tr>`;
  return `<table id="failed-messages"><thead><tr><th></th><th>id</th><th>area</th><th>status</th><th>shop</th><th>stage</th><th>channel</th><th>recipient</th><th>attempts</th><th>created</th><th>reason</th><th>links</th></tr></thead>
<tbody>${body}</tbody></table>`;
}

export function messagesPage(messages: Message[], total: number, filters: MessageFilters, pageNumber: number, csrf: string): string {
  const areas = ["", ...MESSAGE_AREAS]
    .map((a) => `<option value="${esc(a)}"${(filters.area ?? "") === a ? " selected" : ""}>${esc(a || "any")}</option>`)
    .join("");
  const scope = filters.shop === undefined ? "every shop's" : "this shop's";
  const query = new URLSearchParams(messagesQuery(filters).slice(1));
  return `<form id="message-filters" method="get" action="/ops/messages">
<label>Shop <input name="shop" value="${esc(filters.shop ?? "")}" placeholder="id or name"></label>
<label>Area <select name="area">${areas}</select></label>
<label>Search <input name="q" value="${esc(filters.q ?? "")}" placeholder="id, recipient or reason"></label>
<button type="submit">Filter</button></form>
<p>Failed for good (refused, or still failing after SEND_RETRY_HOURS of retries): <strong id="failed-count">${esc(total)}</strong>${total > messages.length ? `, ${esc(messages.length)} on this page` : ""}.
A retry sends the same message again (same row and message id) and retries it for SEND_RETRY_HOURS.</p>
<form id="retry-messages" method="post" action="/ops/messages/retry"><input type="hidden" name="csrf" value="${esc(csrf)}">
<input type="hidden" name="shop" value="${esc(filters.shop ?? "")}"><input type="hidden" name="area" value="${esc(filters.area ?? "")}"><input type="hidden" name="q" value="${esc(filters.q ?? "")}">
<button type="submit" name="scope" value="selected">Retry selected</button>
<button type="submit" name="scope" value="all"${total === 0 ? " disabled" : ""}>Retry all ${esc(total)} (${esc(scope)}${filters.area ? `, ${esc(filters.area)}` : ""}${filters.q ? `, matching ${esc(filters.q)}` : ""})</button></form>
${messagesTable(messages)}
${pager("messages-pager", "/ops/messages", query, pageNumber, total)}`;
}
