import { z } from "zod";
import { type ActionContext, type AnyAction, defineAction } from "../../../core/action.ts";
import { fieldIssue, unprocessable } from "../../../core/errors.ts";
import {
  type DeveloperSettings,
  STOREFRONT_EVENTS,
  WEBHOOK_TOPICS,
  developerSettingsPatchSchema,
  developerSettingsSchema,
  loadDeveloperSettings,
  sealedWebhookSecret,
  storeWebhookSecret,
  updateDeveloperSettings,
} from "../developer.ts";
import { EVENT_ID_HEADER, SIGNATURE_HEADER, TOPIC_HEADER } from "../webhook-events.ts";
import { webhookUrlIssue } from "../webhook-target.ts";
import { loadPreorderSettings, preorderSettingsSchema } from "../settings.ts";
import { shopConfigState, shopConfigStateOutput } from "../../../storefront/state.ts";

const developerOutput = z.strictObject({
  storefront: developerSettingsSchema.shape.storefront,
  webhook: z.strictObject({
    ...developerSettingsSchema.shape.webhook.shape,
    secret_set: z.boolean().describe("Whether a signing secret is stored (the secret itself is never answered)"),
  }),
});

async function present(ctx: ActionContext, settings: DeveloperSettings): Promise<z.output<typeof developerOutput>> {
  const sealed = await sealedWebhookSecret(ctx.db, ctx.shopId);
  return { storefront: settings.storefront, webhook: { ...settings.webhook, secret_set: sealed !== null } };
}

const SIGNING = `Each event is POSTed as JSON { id, topic, created_at, data } with headers ${TOPIC_HEADER}, ${EVENT_ID_HEADER} and ${SIGNATURE_HEADER}: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" under the secret>; a non-2xx answer or no answer within 10 s is retried with backoff (8 attempts)`;

const FIELDS = `storefront.events_enabled (default true: the storefront script dispatches ${STOREFRONT_EVENTS.join(", ")} on document), storefront.debug (default false), \
storefront.selectors.add_to_cart_button, .price, .product_form, .collection_product_card (CSS selectors of the theme, or null for the script's own guess); \
webhook.url (https; null for none; a public address only: loopback, private, link-local, CGNAT, multicast and unspecified addresses are refused, here for literal IPs and localhost and at each delivery for the address the name resolves to; a service that allows private webhook targets, for development, lifts that rule and also accepts plain http to localhost), webhook.events (topics among ${WEBHOOK_TOPICS.join(", ")}; default all), webhook.secret (write-only, at least 16 characters; empty removes it; required while webhook.url is set)`;

const getDeveloperSettings = defineAction({
  name: "preorders.developer_settings.get",
  method: "GET",
  path: "/preorders/developer_settings",
  aliases: ["read preorder developer settings", "show the preorder webhook endpoint", "which storefront selectors does the preorder script use"],
  description: `Developer settings of the shop's preorders: storefront script options and the order-lifecycle webhook (secret_set tells whether a signing secret is stored; the secret is never answered). ${FIELDS}.`,
  kind: "read",
  input: z.strictObject({}),
  output: developerOutput,
  async handler(ctx) {
    return present(ctx, await loadDeveloperSettings(ctx.db, ctx.shopId));
  },
});

const patchDeveloperSettings = defineAction({
  name: "preorders.developer_settings.update",
  method: "PATCH",
  path: "/preorders/developer_settings",
  aliases: ["change preorder developer settings", "set the preorder webhook url", "set custom css selectors for the preorder button"],
  description: `Changes developer settings (deep partial; arrays replaced whole). ${FIELDS}. ${SIGNING}. Answers the complete settings.`,
  notes: [
    "The webhook secret is sealed at rest with the service's key and never answered; set a new one to rotate it.",
    "Events are recorded when an order arrives or changes while the endpoint is set and subscribed; changing the endpoint later does not resend them.",
    "A delivery connects only to the public address the endpoint's name resolves to at that moment; a name resolving to a loopback, private, link-local, CGNAT, multicast or unspecified address is refused without a request and its event logged failed (not retried).",
    "Redirects answered by the endpoint are not followed: a 3xx counts as a failed attempt.",
  ],
  kind: "write",
  input: developerSettingsPatchSchema,
  output: developerOutput,
  async handler(ctx, { input }) {
    const { webhook, ...rest } = input;
    const { secret, ...webhookRest } = webhook ?? {};
    const url = (webhookRest as { url?: unknown }).url;
    const urlIssue = typeof url === "string" && !ctx.config.DEVELOPER_WEBHOOK_ALLOW_PRIVATE_TARGETS ? webhookUrlIssue(url) : undefined;
    if (urlIssue) throw unprocessable([fieldIssue("webhook.url", urlIssue)]);
    const patch: Record<string, unknown> = { ...rest, ...(webhook ? { webhook: webhookRest } : {}) };
    const settings = await updateDeveloperSettings(ctx.db, ctx.shopId, patch);
    if (secret !== undefined) {
      const sealed = secret === "" ? null : (await ctx.services.platform()).secrets.seal(secret);
      await storeWebhookSecret(ctx.db, ctx.shopId, sealed);
    }
    const answer = await present(ctx, settings);
    if (answer.webhook.url !== null && !answer.webhook.secret_set) {
      throw unprocessable([fieldIssue("webhook.secret", "is required while webhook.url is set")]);
    }
    return answer;
  },
});

const storefrontConfigOutput = z.strictObject({
  events: z.strictObject({ enabled: z.boolean(), names: z.array(z.string()).describe("the events dispatched on document while enabled") }),
  debug: z.boolean(),
  selectors: developerSettingsSchema.shape.storefront.shape.selectors,
  display: preorderSettingsSchema.shape.storefront,
  offers: z
    .array(
      z.strictObject({
        id: z.string(),
        name: z.string(),
        platform_selling_plan_id: z.string().nullable().describe("the selling plan the script adds to the cart; null until the offer is synced"),
      }),
    )
    .describe("the shop's active offers"),
  shop_metafield: shopConfigStateOutput.describe(
    "the shop's storefront configuration metafield ($app:preorder.shop, written on every change of these settings, the back-in-stock channels and consent rule, languages, translations and the ad pixel switch): when it was last written and the last failure",
  ),
});

const getStorefrontConfig = defineAction({
  name: "preorders.developer_settings.storefront_config",
  method: "GET",
  path: "/preorders/developer_settings/storefront_config",
  aliases: ["read the preorder storefront script config", "what does the preorder storefront widget load"],
  description:
    "The merged configuration the storefront script loads: JavaScript events (on or off, and their names), debug, the theme's CSS selectors (developer settings), badge and buy-button display (preorder settings storefront.*), the active offers with their selling plans, and shop_metafield: when the shop's storefront configuration metafield (what the widget reads on the storefront) was last written, and its last failure.",
  kind: "read",
  input: z.strictObject({}),
  output: storefrontConfigOutput,
  async handler(ctx) {
    const developer = await loadDeveloperSettings(ctx.db, ctx.shopId);
    const settings = await loadPreorderSettings(ctx.db, ctx.shopId);
    const { rows } = await ctx.db.query<{ id: string; name: string; platform_selling_plan_id: string | null }>(
      "select id, name, platform_selling_plan_id from preorder_offers where shop_id = $1 and status = 'active' and deleted_at is null order by created_at, id",
      [ctx.shopId],
    );
    return {
      events: { enabled: developer.storefront.events_enabled, names: developer.storefront.events_enabled ? [...STOREFRONT_EVENTS] : [] },
      debug: developer.storefront.debug,
      selectors: developer.storefront.selectors,
      display: settings.storefront,
      offers: rows,
      shop_metafield: await shopConfigState(ctx.db, ctx.shopId),
    };
  },
});

export const DEVELOPER_SETTINGS_ACTIONS: readonly AnyAction[] = [getDeveloperSettings, patchDeveloperSettings, getStorefrontConfig];
