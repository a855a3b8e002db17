import { dressMessage, loadAccountMessaging } from "../../account/messaging.ts";
import { type SenderPolicy, senderPolicy } from "../../account/sending.ts";
import type { PreorderBlockedReason } from "../../messaging/blocked.ts";
import type { OutboundMessage } from "../../channels/index.ts";
import { isChannelError } from "../../channels/index.ts";
import { type Db, onCommit, rollbackFailed } from "../../core/db.ts";
import { enqueue } from "../../core/tasks.ts";
import type { TaskContext } from "../../core/tasks.ts";
import { countSend } from "../../metrics/registry.ts";
import { htmlToText } from "../../messaging/render/html-to-text.ts";
import { loadShopInfo } from "../../back_in_stock/templates/render.ts";
import { templateFailure } from "../../messaging/render/limits.ts";
import { renderTemplate } from "../../messaging/render/render.ts";
import { paymentsGroup, shippingGroup } from "../../actions/preorders/offers/plan-groups.ts";
import { loadPreorderSettings } from "../settings/settings.ts";
import { type DeliverySnapshot, MAX_NOTIFICATION_ATTEMPTS, notificationSendTask } from "./task-refs.ts";
import { gaveUpReason, sendAttemptsFor } from "../../messaging/retry.ts";
import { type NotificationChannel, type NotificationStage, chooseTemplate, stageSwitches, storedTemplates } from "./templates.ts";

/**
 * THE LEDGER of notifications to preorder customers (preorder_notifications): one row per order,
 * stage, event and channel, ever. `claimNotifications` inserts the rows (`on conflict do nothing`:
 * a repeated event claims nothing) and queues one send job per row in the caller's transaction;
 * `sendNotification` sends a pending row while holding its row lock, with the row's id as the
 * message id, and marks it sent, failed or blocked. A retryable failure records the attempt and
 * throws, so graphile-worker retries the job with its backoff.
 */

/** The refusals of a preorder notification (the messaging vocabulary: src/messaging/blocked.ts). */
export const BLOCKED_REASONS = ["stage_disabled", "channel_disabled", "no_recipient", "order_cancelled", "balance_paid"] as const satisfies readonly PreorderBlockedReason[];
export type BlockedReason = (typeof BLOCKED_REASONS)[number];

export interface ClaimSpec {
  shopId: string;
  stage: NotificationStage;
  /** '' for confirmation; the change's id; the due instant. */
  eventKey: string;
  /** What the message is about, kept on the row (delivery before and after, ...). */
  context?: Record<string, unknown>;
}

/**
 * Claims the stage for the given orders: a row per channel the order can be reached on and the
 * shop has on (e-mail with an address, text message with a phone), or one `blocked` row when
 * none (no_recipient, or channel_disabled when its channels are off). Queues the sends. Answers
 * the ids claimed (pending).
 */
export async function claimNotifications(db: Db, spec: ClaimSpec, orderIds: readonly string[], offerId: string | null): Promise<string[]> {
  if (orderIds.length === 0) return [];
  const settings = await loadPreorderSettings(db, spec.shopId);
  const { rows } = await db.query<{ id: string; status: string; channel: string }>(
    `with target as (
       select o.id, o.email, o.phone, coalesce(o.locale, s.default_locale) as locale,
              coalesce($6::uuid, (select l.offer_id from preorder_order_lines l where l.order_id = o.id and l.offer_id is not null
                                   order by l.platform_line_id limit 1)) as offer_id
       from preorder_orders o join shops s on s.id = o.shop_id
       where o.shop_id = $1 and o.id = any($2::uuid[])
     ), wanted as (
       select t.id as order_id, t.offer_id, t.locale, 'email' as channel, t.email as recipient, 'pending' as status, null as reason
       from target t where t.email is not null and $7
       union all
       select t.id, t.offer_id, t.locale, 'sms', t.phone, 'pending', null from target t where t.phone is not null and $8
       union all
       -- reachable on no channel that is on: one refusal, on the channel the order has
       select t.id, t.offer_id, t.locale, case when t.email is null and t.phone is not null then 'sms' else 'email' end,
              coalesce(t.email, t.phone), 'blocked', case when t.email is null and t.phone is null then 'no_recipient' else 'channel_disabled' end
       from target t
       where not ((t.email is not null and $7) or (t.phone is not null and $8))
     )
     insert into preorder_notifications (shop_id, order_id, offer_id, stage, event_key, channel, recipient, locale, status, blocked_reason, context)
     select $1, w.order_id, w.offer_id, $3, $4, w.channel, w.recipient, w.locale, w.status, w.reason, $5::jsonb from wanted w
     on conflict (order_id, stage, event_key, channel) do nothing
     returning id, status, channel`,
    [spec.shopId, orderIds, spec.stage, spec.eventKey, JSON.stringify(spec.context ?? {}), offerId, settings.notifications.email.enabled, settings.notifications.sms.enabled],
  );
  const blocked = rows.filter((r) => r.status === "blocked");
  // Refused at the claim: decided here, never sent.
  onCommit(db, () => {
    for (const row of blocked) countSend("preorder", row.channel, "blocked");
  });
  const pending = rows.filter((r) => r.status === "pending").map((r) => r.id);
  for (const id of pending) {
    await enqueue(db, notificationSendTask, { notification_id: id }, { jobKey: `${notificationSendTask.name}:${id}`, maxAttempts: MAX_NOTIFICATION_ATTEMPTS });
  }
  return pending;
}

interface PendingRow {
  id: string;
  shop_id: string;
  order_id: string;
  offer_id: string | null;
  stage: NotificationStage;
  channel: NotificationChannel;
  recipient: string;
  locale: string;
  attempts: number;
  context: Record<string, unknown>;
  order_name: string | null;
  currency: string;
  total_price: string;
  total_outstanding: string;
  order_status: string;
  email: string | null;
  phone: string | null;
  balance_due_at: Date | null;
  auto_collect: string | null;
  offer_name: string | null;
  offer_settings: Record<string, unknown> | null;
}

const day = (d: Date | string | null | undefined): string => (d ? new Date(d).toISOString().slice(0, 10) : "");

/** A delivery as templates see it: type, date (YYYY-MM-DD or empty), days. */
export function deliveryVariables(delivery: DeliverySnapshot | undefined): Record<string, unknown> {
  if (!delivery) return { type: "", date: "", days: null };
  return { type: delivery.type, date: delivery.type === "on_date" ? day(delivery.date) : "", days: delivery.days };
}

/** The offer's delivery as stored (defaults filled). */
export function offerDelivery(settings: Record<string, unknown> | null): DeliverySnapshot {
  const { delivery } = shippingGroup.schema.parse((settings ?? {}).shipping ?? {});
  return { type: delivery.type, date: delivery.date, days: delivery.days };
}

function blockedReason(row: PendingRow, switches: Record<NotificationStage, boolean>, channelOn: boolean): BlockedReason | undefined {
  if (!switches[row.stage]) return "stage_disabled";
  if (!channelOn) return "channel_disabled";
  if (row.order_status === "cancelled" || row.order_status === "refunded") return "order_cancelled";
  if (row.stage === "balance_due" && Number(row.total_outstanding) <= 0) return "balance_paid";
  return undefined;
}

type Outcome =
  | { outcome: "sent"; providerMessageId: string }
  | { outcome: "failed"; error: string; attempted: boolean }
  | { outcome: "blocked"; reason: BlockedReason }
  | { outcome: "retry"; error: string };

/** The notification's message id: deterministic, from the ledger row. */
export const notificationMessageId = (id: string): string => `preorder-${id}`;

/**
 * Sends one pending notification and marks it. Answers what happened (`skipped` when another
 * sender holds the row or it is no longer pending); throws after recording a retryable failure.
 */
export async function sendNotification(ctx: TaskContext, id: string): Promise<string> {
  const client = await ctx.pool.connect();
  let broken = false;
  let result: Outcome | undefined;
  let channel: string | undefined;
  try {
    await client.query("begin");
    const { rows } = await client.query<PendingRow>(
      `select n.id, n.shop_id, n.order_id, n.offer_id, n.stage, n.channel, n.recipient, n.locale, n.attempts, n.context,
              o.name as order_name, o.currency, o.total_price::text, o.total_outstanding::text, o.status as order_status, o.email, o.phone,
              o.balance_due_at, o.auto_collect, po.name as offer_name, po.settings as offer_settings
       from preorder_notifications n
       join preorder_orders o on o.id = n.order_id
       left join preorder_offers po on po.id = n.offer_id
       where n.id = $1 and n.status = 'pending'
       for update of n skip locked`,
      [id],
    );
    const row = rows[0];
    if (!row) {
      await client.query("commit");
      return "skipped";
    }
    channel = row.channel;
    const settings = await loadPreorderSettings(client, row.shop_id);
    const switches = await stageSwitches(client, row.shop_id);
    const reason = blockedReason(row, switches, settings.notifications[row.channel].enabled);
    if (reason) result = { outcome: "blocked", reason };
    else {
      let message: OutboundMessage | undefined;
      try {
        message = await render(client, row, senderPolicy(ctx.config));
      } catch (error) {
        result = { outcome: "failed", attempted: false, error: error instanceof Error ? error.message : String(error) };
      }
      if (message) {
        try {
          const sent = await ctx.channels.get(row.channel).send(message);
          result = sent.accepted
            ? { outcome: "sent", providerMessageId: sent.providerMessageId }
            : { outcome: "failed", attempted: true, error: "The provider accepted no recipient" };
        } catch (error) {
          const retryable = isChannelError(error) ? error.retryable : true;
          const text = error instanceof Error ? error.message : String(error);
          // The configured window's last attempt (the job's own max_attempts covers the longest window).
          const last = ctx.attempt >= Math.min(ctx.maxAttempts, sendAttemptsFor(ctx.config.SEND_RETRY_HOURS));
          if (!retryable) result = { outcome: "failed", attempted: true, error: text };
          else if (last) result = { outcome: "failed", attempted: true, error: gaveUpReason(text, ctx.config.SEND_RETRY_HOURS) };
          else result = { outcome: "retry", error: text };
        }
      }
    }
    await mark(client, id, result ?? { outcome: "failed", attempted: false, error: "nothing was decided" });
    await client.query("commit");
  } catch (error) {
    broken = await rollbackFailed(client);
    throw error;
  } finally {
    client.release(broken);
  }
  if (channel !== undefined) countSend("preorder", channel, result?.outcome ?? "failed");
  if (result?.outcome === "retry") throw new Error(`notification ${id}: ${result.error}`);
  return result?.outcome ?? "failed";
}

async function mark(db: Db, id: string, result: Outcome): Promise<void> {
  const attempted = result.outcome === "sent" || result.outcome === "retry" || (result.outcome === "failed" && result.attempted);
  await db.query(
    `update preorder_notifications set
       status = $2, attempts = attempts + $3, blocked_reason = $4, last_error = coalesce($5, last_error),
       provider_message_id = coalesce($6, provider_message_id), sent_at = case when $2 = 'sent' then now() else sent_at end, updated_at = now()
     where id = $1`,
    [
      id,
      result.outcome === "retry" ? "pending" : result.outcome,
      attempted ? 1 : 0,
      result.outcome === "blocked" ? result.reason : null,
      result.outcome === "failed" || result.outcome === "retry" ? result.error : null,
      result.outcome === "sent" ? result.providerMessageId : null,
    ],
  );
}

/** The variables of NOTIFICATION_VARIABLES for one row. */
async function variables(db: Db, row: PendingRow): Promise<{ vars: Record<string, unknown>; shopUrl: string; defaultLocale: string }> {
  const shop = await loadShopInfo(db, row.shop_id);
  const context = row.context as { current?: DeliverySnapshot; previous?: DeliverySnapshot };
  const payments = row.offer_settings ? paymentsGroup.schema.parse(row.offer_settings.payments ?? {}) : undefined;
  const balance = Number(row.total_outstanding) > 0 ? row.total_outstanding : "";
  return {
    shopUrl: shop.url,
    defaultLocale: shop.defaultLocale,
    vars: {
      shop: { name: shop.name, url: shop.url },
      customer: { email: row.email ?? "", phone: row.phone ?? "" },
      order: { name: row.order_name ?? "", currency: row.currency, total_price: row.total_price, status: row.order_status },
      offer: { name: row.offer_name ?? "" },
      delivery: deliveryVariables(context.current ?? (row.offer_settings ? offerDelivery(row.offer_settings) : undefined)),
      previous_delivery: deliveryVariables(context.previous),
      balance: {
        amount: balance,
        due_date: day(row.balance_due_at),
        auto_collect: row.auto_collect !== null || Boolean(payments?.remaining_balance.auto_collect),
      },
    },
  };
}

/**
 * The row's message as the shop sends it: rendered from its template, then dressed like every
 * message of the shop (account/messaging.ts: the sender identity, the e-mail layout).
 */
async function render(db: Db, row: PendingRow, senders: SenderPolicy): Promise<OutboundMessage> {
  const { vars, shopUrl, defaultLocale } = await variables(db, row);
  const template = chooseTemplate(row.stage, row.channel, row.locale, defaultLocale, await storedTemplates(db, row.shop_id, row.stage));
  const field = (name: string) => `the ${row.stage} ${row.channel}.${name} (${template.locale})`;
  const run = async (kind: "text" | "html", source: string, name: string): Promise<string> => {
    try {
      return await renderTemplate(source, vars, kind, { owner: row.shop_id });
    } catch (error) {
      throw new Error(`Template did not render: ${templateFailure(field(name), error)}`, { cause: error });
    }
  };
  const id = notificationMessageId(row.id);
  let message: OutboundMessage;
  if (row.channel === "sms") message = { id, channel: "sms", to: row.recipient, text: (await run("text", template.body, "body")).trim() };
  else {
    const html = await run("html", template.body, "body");
    const subject = await run("text", template.subject, "subject");
    message = {
      id,
      channel: "email",
      to: row.recipient,
      subject: subject.replace(/\s+/g, " ").trim(),
      html,
      text: htmlToText(html),
    };
  }
  const account = await loadAccountMessaging(db, row.shop_id, { senders, shopUrl });
  try {
    return dressMessage(message, account);
  } catch (error) {
    throw new Error(`Template did not render: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`, { cause: error });
  }
}
