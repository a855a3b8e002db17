import { z } from "zod";
import type { Db } from "../../core/db.ts";
import { deepPartialStrict } from "../../core/deep-partial.ts";
import { defineDocument } from "../../core/settings-document.ts";
import { enqueueShopConfigSync } from "../../storefront/enqueue.ts";

/**
 * Developer settings of a shop's preorders: what the storefront script is told (JavaScript events
 * on or off, CSS selectors of the theme's button, price and form, debug logging) and the webhook
 * endpoint that order-lifecycle events are POSTed to, signed with HMAC-SHA256 under a secret the
 * merchant sets (write-only: sealed at rest, never answered).
 */

export const WEBHOOK_TOPICS = [
  "preorder_order.created",
  "preorder_order.balance_collected",
  "preorder_order.fulfilled",
  "preorder_order.cancelled",
  "preorder_order.rules_broken",
] as const;
export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number];

/** Storefront JavaScript events the script (src/storefront/widget/) dispatches on `document` while events_enabled. */
export const STOREFRONT_EVENTS = [
  "preorder:loaded",
  "preorder:variant_changed",
  "preorder:button_shown",
  "preorder:added_to_cart",
  "preorder:refused",
  "preorder:signup",
] as const;

const selector = z
  .string()
  .trim()
  .min(1)
  .max(500)
  .regex(/^[^{}<>]+$/, "must be a CSS selector")
  .nullable();

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * https, or http to this machine (a developer's tunnel or test server): anything else is refused.
 * The message holds in both modes of DEVELOPER_WEBHOOK_ALLOW_PRIVATE_TARGETS: http to this machine
 * passes here and, with the switch off, is refused by the address rule (webhook-target.ts) like
 * https to it, so no other http URL is ever accepted.
 */
const webhookUrl = z
  .string()
  .max(2000)
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === "https:" || (url.protocol === "http:" && LOCAL_HOSTS.has(url.hostname));
    } catch {
      return false;
    }
  }, "must be an https URL");

export const developerSettingsSchema = z.strictObject({
  storefront: z.strictObject({
    events_enabled: z.boolean().describe(`The storefront script dispatches ${STOREFRONT_EVENTS.join(", ")} on document`),
    debug: z.boolean().describe("The storefront script logs its decisions to the browser console"),
    selectors: z.strictObject({
      add_to_cart_button: selector.describe("The theme's add-to-cart button, replaced by the preorder button (null: the script's built-in guess)"),
      price: selector.describe("The theme's price element, where the preorder price and discount show"),
      product_form: selector.describe("The theme's product form, where the preorder selling plan is added"),
      collection_product_card: selector.describe("A product card of collection pages, where the badge shows"),
    }),
  }),
  webhook: z.strictObject({
    url: webhookUrl.nullable().describe("Where order-lifecycle events are POSTed (null: none)"),
    events: z.array(z.enum(WEBHOOK_TOPICS)).max(WEBHOOK_TOPICS.length).describe("The topics sent; empty: none"),
  }),
});

export type DeveloperSettings = z.output<typeof developerSettingsSchema>;

const DEFAULT_DEVELOPER_SETTINGS: DeveloperSettings = {
  storefront: {
    events_enabled: true,
    debug: false,
    selectors: { add_to_cart_button: null, price: null, product_form: null, collection_product_card: null },
  },
  webhook: { url: null, events: [...WEBHOOK_TOPICS] },
};

const storedPatch = deepPartialStrict(developerSettingsSchema) as z.ZodObject;

/** The PATCH body: the stored settings deep-partial, plus the write-only webhook.secret. */
export const developerSettingsPatchSchema = z.strictObject({
  storefront: (storedPatch.shape.storefront as z.ZodType).optional(),
  webhook: z
    .strictObject({
      ...((storedPatch.shape.webhook as z.ZodOptional<z.ZodObject>).unwrap().shape as Record<string, z.ZodType>),
      secret: z
        .string()
        .max(200)
        .refine((s) => s === "" || (s.length >= 16 && /\S/.test(s)), "must be at least 16 characters, or empty to remove it")
        .optional()
        .describe("Write-only signing secret (at least 16 characters); empty removes it"),
    })
    .optional(),
});

/** GET/PATCH /preorders/developer_settings (the webhook secret aside: its own column, sealed). */
const developerSettingsDocument = defineDocument({
  table: "preorder_shop_settings",
  column: "developer_settings",
  label: "preorder developer_settings",
  schema: developerSettingsSchema,
  defaults: DEFAULT_DEVELOPER_SETTINGS,
  // storefront.* reaches the widget through the shop's storefront configuration metafield.
  afterPatch: async (db, shopId, patch) => {
    if (patch.storefront !== undefined) await enqueueShopConfigSync(db, shopId);
  },
});

export function loadDeveloperSettings(db: Db, shopId: string): Promise<DeveloperSettings> {
  return developerSettingsDocument.load(db, shopId);
}

export function updateDeveloperSettings(db: Db, shopId: string, patch: Record<string, unknown>): Promise<DeveloperSettings> {
  return developerSettingsDocument.patch(db, shopId, patch);
}

/** The sealed webhook secret, or null when none is set. */
export async function sealedWebhookSecret(db: Db, shopId: string): Promise<Buffer | null> {
  const { rows } = await db.query<{ webhook_secret: Buffer | null }>("select webhook_secret from preorder_shop_settings where shop_id = $1", [shopId]);
  return rows[0]?.webhook_secret ?? null;
}

export async function storeWebhookSecret(db: Db, shopId: string, sealed: Buffer | null): Promise<void> {
  await db.query(
    `insert into preorder_shop_settings (shop_id, webhook_secret) values ($1, $2)
     on conflict (shop_id) do update set webhook_secret = excluded.webhook_secret, updated_at = now()`,
    [shopId, sealed],
  );
}
