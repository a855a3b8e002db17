import type { Db } from "../core/db.ts";
import { isUuid } from "../core/params.ts";
import { MESSAGE_AREAS, type MessageArea } from "../messaging/areas.ts";
import type { FailedMessage, ResendResult } from "../messaging/failed.ts";
import { esc, time } from "./html.ts";

/**
 * The console's failed-messages view (/ops/messages): messages of both areas that failed for good
 * (src/messaging/failed.ts), by shop and area, each with its reason, and a bulk retry. Not a live
 * region: a refresh would drop the operator's ticked rows.
 */

export const MESSAGES_SHOWN = 200;

export interface MessageFilters {
  /** A shop's id, or its name (case-insensitive), as the jobs view takes it. */
  shop?: string | undefined;
  area?: MessageArea | undefined;
}

export function messageFiltersOf(values: { shop?: string | undefined; area?: string | undefined }): MessageFilters | string {
  const area = values.area?.trim() || undefined;
  if (area !== undefined && !(MESSAGE_AREAS as readonly string[]).includes(area)) return `area must be one of ${MESSAGE_AREAS.join(", ")}`;
  return { shop: values.shop?.trim() || undefined, area: area as MessageArea | undefined };
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
  const text = query.toString();
  return text ? `?${text}` : "";
}

export function presentMessage(message: FailedMessage): Record<string, unknown> {
  return { ...message, created_at: message.created_at.toISOString() };
}

/** The flash after a retry: how many of each area were queued, and for whom. */
export function retriedText(result: ResendResult, everyShop: boolean): string {
  const total = result.back_in_stock + result.preorders;
  if (total === 0) return "Nothing was queued: no selected message is failed any more.";
  return `Queued again: ${result.back_in_stock} back-in-stock and ${result.preorders} preorder message(s)${everyShop ? " of every shop" : ""}.`;
}

function row(m: FailedMessage): string {
  return `<tr data-message-id="${esc(m.id)}" data-area="${esc(m.area)}"><td><input type="checkbox" name="id" value="${esc(m.id)}" form="retry-messages" aria-label="select ${esc(m.id)}"></td>
<td class="id">${esc(m.id)}</td><td class="area">${esc(m.area)}</td><td class="shop">${esc(`${m.shop_name} ${m.shop_id}`)}</td><td class="stage">${esc(m.stage)}</td>
<td class="channel">${esc(m.channel)}</td><td class="recipient">${esc(m.recipient)}</td><td class="attempts">${esc(m.attempts)}</td><td class="created">${esc(time(m.created_at))}</td><td class="error">${esc(m.error ?? "")}</td></tr>`;
}

function messagesTable(messages: FailedMessage[]): string {
  const body = messages.length ? messages.map(row).join("\n") : `<tr class="empty"><td colspan="10">No failed messages.</td></tr>`;
  return `<table id="failed-messages"><thead><tr><th></th><th>id</th><th>area</th><th>shop</th><th>stage</th><th>channel</th><th>recipient</th><th>attempts</th><th>created</th><th>reason</th></tr></thead>
<tbody>${body}</tbody></table>`;
}

export function messagesPage(messages: FailedMessage[], total: number, filters: MessageFilters, csrf: string): string {
  const areas = ["", ...MESSAGE_AREAS]
    .map((a) => `<option value="${esc(a)}"${(filters.area ?? "") === a ? " selected" : ""}>${esc(a || "any")}</option>`)
    .join("");
  const scope = filters.shop === undefined ? "every shop's" : "this shop's";
  return `<form id="message-filters" method="get" action="/ops/messages">
<label>Shop <input name="shop" value="${esc(filters.shop ?? "")}" placeholder="id or name"></label>
<label>Area <select name="area">${areas}</select></label>
<button type="submit">Filter</button></form>
<p>Failed for good (refused, or still failing after SEND_RETRY_HOURS of retries): <strong id="failed-count">${esc(total)}</strong>${total > messages.length ? `, the newest ${esc(messages.length)} shown` : ""}.
A retry sends the same message again (same row and message id) and retries it for SEND_RETRY_HOURS.</p>
<form id="retry-messages" method="post" action="/ops/messages/retry"><input type="hidden" name="csrf" value="${esc(csrf)}">
<input type="hidden" name="shop" value="${esc(filters.shop ?? "")}"><input type="hidden" name="area" value="${esc(filters.area ?? "")}">
<button type="submit" name="scope" value="selected">Retry selected</button>
<button type="submit" name="scope" value="all"${total === 0 ? " disabled" : ""}>Retry all ${esc(total)} (${esc(scope)}${filters.area ? `, ${esc(filters.area)}` : ""})</button></form>
${messagesTable(messages)}`;
}
