import { type AccountMessaging, dressMessage, loadAccountMessaging } from "../../account/messaging.ts";
import type { RenderedMessage } from "../../account/layout.ts";
import { senderPolicy } from "../../account/sending.ts";
import type { PreorderBlockedReason } from "../../messaging/blocked.ts";
import type { OutboundMessage } from "../../channels/index.ts";
import type { Config } from "../../config.ts";
import { type Db, onCommit } from "../../core/db.ts";
import { enqueue } from "../../core/tasks.ts";
import type { TaskContext } from "../../core/tasks.ts";
import { countSend } from "../../metrics/registry.ts";
import { type TitleTranslator, needsTranslation, platformTitles, titleKey } from "../../messaging/product-titles.ts";
import type { Log } from "../../logger.ts";
import type { PlatformRuntime } from "../../platform/runtime.ts";
import { type ShopInfo, loadShopInfo, messageLocale } from "../../account/shop-info.ts";
import { templateFailure } from "../../messaging/render/limits.ts";
import { renderTemplate } from "../../messaging/render/render.ts";
import { type LeaseHolder, leaseDead, leaseTo } from "../../messaging/ledger/lease.ts";
import { isLastAttempt } from "../../messaging/ledger/outcome.ts";
import { type LedgerDeps, type MarkResult, type MessageLedger, sendClaimed } from "../../messaging/ledger/send.ts";
import { paymentsGroup, shippingGroup } from "../offers/groups/plan-groups.ts";
import { type PreorderSettings, loadPreorderSettings } from "../settings/settings.ts";
import { type DeliverySnapshot, MAX_NOTIFICATION_ATTEMPTS, notificationSendTask } from "./task-refs.ts";
import { type NotificationChannel, type NotificationStage, type StoredTemplate, chooseTemplate, stageSwitches, storedTemplates } from "./templates.ts";

/**
 * THE PREORDER LEDGER of notifications to preorder customers (preorder_notifications): one row
 * per order, stage, event and channel, ever. `claimNotifications` inserts the rows (`on conflict
 * do nothing`: a repeated event claims nothing) and queues one send job per row in the caller's
 * transaction; each job sends its row through the messaging pipeline (src/messaging/ledger/send.ts:
 * a lease instead of a lock held across the send, the row's id in the message id, marked sent,
 * failed or blocked; a retryable failure is recorded and the job throws, so graphile-worker
 * retries it with its backoff) with this area's rows, refusals, render and mark (preorderLedger).
 */

/** The refusals of a preorder notification (the messaging vocabulary: src/messaging/blocked.ts). */
export const BLOCKED_REASONS = ["stage_disabled", "channel_disabled", "no_recipient", "order_cancelled", "balance_paid"] as const satisfies readonly PreorderBlockedReason[];
type BlockedReason = (typeof BLOCKED_REASONS)[number];

interface ClaimSpec {
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

/** A leased preorder_notifications row, with its order and offer. */
interface NotificationRow {
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
  /** The product of the order's first line of the offer (or first preorder line), from the catalog mirror. */
  product_id: string | null;
  product_title: string | null;
}

const day = (d: Date | string | null | undefined): string => (d ? new Date(d).toISOString().slice(0, 10) : "");

/** A delivery as templates see it: type, date (YYYY-MM-DD or empty), days. */
function deliveryVariables(delivery: DeliverySnapshot | undefined): Record<string, unknown> {
  if (!delivery) return { type: "", date: "", days: null };
  return { type: delivery.type, date: delivery.type === "on_date" ? day(delivery.date) : "", days: delivery.days };
}

/** The offer's delivery as stored (defaults filled). */
export function offerDelivery(settings: Record<string, unknown> | null): DeliverySnapshot {
  const { delivery } = shippingGroup.schema.parse((settings ?? {}).shipping ?? {});
  return { type: delivery.type, date: delivery.date, days: delivery.days };
}

function blockedReason(row: NotificationRow, switches: Record<NotificationStage, boolean>, channelOn: boolean): BlockedReason | undefined {
  if (!switches[row.stage]) return "stage_disabled";
  if (!channelOn) return "channel_disabled";
  if (row.order_status === "cancelled" || row.order_status === "refunded") return "order_cancelled";
  if ((row.stage === "balance_due" || row.stage === "payment_request") && Number(row.total_outstanding) <= 0) return "balance_paid";
  return undefined;
}

/** The notification's message id: deterministic, from the ledger row. */
export const notificationMessageId = (id: string): string => `preorder-${id}`;

interface ShopContext {
  settings: PreorderSettings;
  switches: Record<NotificationStage, boolean>;
  shop: ShopInfo;
  account: AccountMessaging;
  templates: Map<NotificationStage, Promise<StoredTemplate[]>>;
  /** The platform's translated product titles (product_translations_enabled), when the deps can read the platform. */
  titles: TitleTranslator | undefined;
}

/** The pipeline's view of preorder_notifications (src/messaging/ledger/send.ts). */
export function preorderLedger(
  deps: LedgerDeps & { config: Config; platform?: Pick<PlatformRuntime, "clientFor">; log?: Pick<Log, "warn"> },
): MessageLedger<NotificationRow, BlockedReason, ShopContext> {
  return {
    kind: "preorder",
    table: "preorder_notifications",
    lease: leaseNotifications,
    mark: markPreorderNotifications,
    queueSend: queueNotificationSend,
    async loadShop(shopId) {
      const shop = await loadShopInfo(deps.pool, shopId);
      const [settings, switches, account] = await Promise.all([
        loadPreorderSettings(deps.pool, shopId),
        stageSwitches(deps.pool, shopId),
        loadAccountMessaging(deps.pool, shopId, { senders: senderPolicy(deps.config), shopUrl: shop.url }),
      ]);
      const titles = deps.platform && deps.log ? platformTitles(deps.platform, deps.log) : undefined;
      return { settings, switches, shop, account, templates: new Map(), titles };
    },
    refusal: (row, { settings, switches }) => blockedReason(row, switches, settings.notifications[row.channel].enabled),
    async render(row, shop) {
      let templates = shop.templates.get(row.stage);
      if (!templates) shop.templates.set(row.stage, (templates = storedTemplates(deps.pool, row.shop_id, row.stage)));
      return render(row, shop, await templates, await productTitle(deps.pool, row, shop));
    },
  };
}

/**
 * Sends one pending notification (its job, `preorders_notification_send`) and marks it. Answers
 * what happened (`skipped` when another sender holds the row or it is no longer pending); throws
 * after recording a retryable failure, so graphile-worker retries the job with its backoff, until
 * the last attempt of SEND_RETRY_HOURS fails it with the reason.
 */
export async function sendNotification(ctx: TaskContext, id: string): Promise<string> {
  const summary = await sendClaimed(ctx, preorderLedger(ctx), [id], { mode: "throw", lastAttempt: isLastAttempt(ctx, ctx.config.SEND_RETRY_HOURS) });
  if (summary.skipped > 0) return "skipped";
  return summary.sent > 0 ? "sent" : summary.blocked > 0 ? "blocked" : "failed";
}

async function queueNotificationSend(db: Db, id: string): Promise<void> {
  await enqueue(db, notificationSendTask, { notification_id: id }, { jobKey: `${notificationSendTask.name}:${id}`, maxAttempts: MAX_NOTIFICATION_ATTEMPTS });
}

async function leaseNotifications(db: Db, ids: readonly string[], holder: LeaseHolder): Promise<NotificationRow[]> {
  // Not named: planned at each lease, for the table's size now (as leaseAlerts).
  const { rows } = await db.query<NotificationRow>(
    `with leased as (
       update preorder_notifications n set ${leaseTo("$2")}
       where n.id = any($1::uuid[]) and n.status = 'pending' and ${leaseDead("n")}
       returning n.*
     )
     select n.id, n.shop_id, n.order_id, n.offer_id, n.stage, n.channel, n.recipient, n.locale, n.attempts, n.context,
            o.name as order_name, o.currency, o.total_price::text, o.total_outstanding::text, o.status as order_status, o.email, o.phone,
            o.balance_due_at, o.auto_collect, po.name as offer_name, po.settings as offer_settings,
            line.product_id, p.title as product_title
     from leased n
     join preorder_orders o on o.id = n.order_id
     left join preorder_offers po on po.id = n.offer_id
     left join lateral (
       select l.product_id from preorder_order_lines l
       where l.order_id = n.order_id and l.selling_plan_id is not null and l.product_id is not null
       order by (l.offer_id is not distinct from n.offer_id) desc, l.platform_line_id limit 1
     ) line on true
     left join products p on p.shop_id = n.shop_id and p.id = line.product_id
     order by n.created_at, n.id`,
    [ids, holder.pid],
  );
  return rows;
}

/** Marks the outcomes in one statement (their leases end); a retry stays pending with its error. Only the row's id is read. */
export async function markPreorderNotifications(db: Db, results: readonly MarkResult<Pick<NotificationRow, "id">, BlockedReason>[]): Promise<void> {
  if (results.length === 0) return;
  const flat = results.map(({ row, outcome, attempted, error, blocked_reason, provider_message_id }) => ({
    id: row.id,
    outcome,
    attempted,
    error: outcome === "failed" || outcome === "retry" ? (error ?? null) : null,
    blocked_reason: outcome === "blocked" ? (blocked_reason ?? null) : null,
    provider_message_id: outcome === "sent" ? (provider_message_id ?? null) : null,
  }));
  // The statement is the function preorder_notifications_mark (sql/102_preorder_notifications_mark_function.sql):
  // its plan is kept by the connection and made without sequential scans, right at any size.
  await db.query({
    name: "preorder_notifications_mark",
    text: "select preorder_notifications_mark($1::jsonb)",
    values: [JSON.stringify(flat)],
  });
}

/** The variables of NOTIFICATION_VARIABLES for one row. */
function variables(row: NotificationRow, shop: ShopInfo, title: string): { vars: Record<string, unknown>; shopUrl: string; defaultLocale: string } {
  const context = row.context as { current?: DeliverySnapshot; previous?: DeliverySnapshot; payment_url?: string };
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
      product: { title },
      delivery: deliveryVariables(context.current ?? (row.offer_settings ? offerDelivery(row.offer_settings) : undefined)),
      previous_delivery: deliveryVariables(context.previous),
      balance: {
        amount: balance,
        due_date: day(row.balance_due_at),
        auto_collect: row.auto_collect !== null || Boolean(payments?.remaining_balance.auto_collect),
        // only a payment_request carries it: the platform's link, asked for when the request was made
        payment_url: context.payment_url ?? "",
      },
    },
  };
}

/**
 * The row's message as the shop sends it: rendered from its template, then dressed like every
 * message of the shop (account/messaging.ts: the sender identity, the e-mail layout).
 */
/**
 * The product's title in the message's locale: the platform's translation while the shop has
 * product_translations_enabled (cached, messaging/product-titles.ts), else the catalog's.
 */
async function productTitle(db: Db, row: NotificationRow, shop: ShopContext): Promise<string> {
  const title = row.product_title ?? "";
  const locale = messageLocale(shop.shop, row.locale);
  if (!shop.titles || !shop.shop.productTranslations || !row.product_id || !needsTranslation(locale, shop.shop.defaultLocale)) return title;
  const found = await shop.titles.titles(db, row.shop_id, [{ productId: row.product_id, locale }]);
  return found.get(titleKey(row.product_id, locale)) ?? title;
}

async function render(row: NotificationRow, shop: ShopContext, stored: StoredTemplate[], title: string): Promise<OutboundMessage> {
  const { vars, defaultLocale } = variables(row, shop.shop, title);
  const template = chooseTemplate(row.stage, row.channel, messageLocale(shop.shop, row.locale), defaultLocale, stored);
  const field = (name: string) => `the ${row.stage} ${row.channel}.${name} (${template.locale})`;
  const run = async (kind: "text" | "html", source: string, name: string): Promise<string> => {
    try {
      return await renderTemplate(source, vars, kind, { owner: row.shop_id });
    } catch (error) {
      throw new Error(`Template did not render: ${templateFailure(field(name), error)}`, { cause: error });
    }
  };
  const id = notificationMessageId(row.id);
  let message: RenderedMessage;
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
    };
  }
  return dressMessage(message, shop.account);
}
