import { z } from "zod";
import { defineAction } from "../../../core/action.ts";
import { integrationsOutput, integrationsPatchSchema, integrationsSnapshot, patchIntegrations } from "../../../providers/integrations.ts";

export const getIntegrations = defineAction({
  name: "account.integrations.get",
  method: "GET",
  path: "/account/integrations",
  description:
    "The shop's integrations as flags, never keys or tokens: for each e-mail provider (email_provider_1..3) connected, verified and sync_enabled with the audience (list_id) new signups go to; sms_provider connected (from the service's configuration); commerce_platform connected and sync_enabled with sync_customers_tag (the tag added to the platform customer of each new signup); signup_sync_targets (where a new signup is synced now); and the ad_pixel, flow_triggers and split_order_app switches.",
  aliases: ["show account integrations", "which email providers are connected", "read signup sync settings"],
  notes: [
    "verified is true once the provider accepted the saved credential (email_provider_3: when the key was saved; email_provider_2: at its first successful sync) and turns false when the provider refuses it.",
    "Each signup's own sync state (pending, synced, failed) is in the sync field of GET /back_in_stock/signups/{id}.",
  ],
  kind: "read",
  input: z.strictObject({}),
  output: integrationsOutput,
  async handler(ctx) {
    return integrationsSnapshot(ctx.db, ctx.config, ctx.shopId);
  },
});

export const patchIntegrationsAction = defineAction({
  name: "account.integrations.update",
  method: "PATCH",
  path: "/account/integrations",
  description:
    "Changes integrations (deep partial; answers 202 with the same snapshot as the GET). email_provider_1: sync_enabled only (it connects by OAuth from the app's Integrations page; 409 while it is not connected). email_provider_2: api_key, list_id, sync_enabled. email_provider_3: api_key (checked by fetching the account's audiences: 422 `email_provider_3.api_key was refused by email_provider_3` and nothing saved when the provider refuses it), list_id (422 `email_provider_3.list_id must be one of: <ids>` unless it is one of those audiences), sync_enabled. commerce_platform.sync_enabled and sync_customers_tag: tag the platform customer of each new signup. ad_pixel.enabled, flow_triggers (enabled, triggers: replaces the stored list), split_order_app.enabled.",
  aliases: ["connect an email marketing provider", "save an email provider api key", "turn on signup sync to an email provider", "choose the audience for new signups"],
  notes: [
    "API keys are write-only: no read ever returns them; they are stored encrypted, and an empty string removes the saved key (which also turns that provider's sync off).",
    "When email_provider_3 cannot be reached to check a key or a list, the answer is 422 on that field saying so, and nothing in the request is saved.",
    "sync_enabled: true needs a saved key and a list_id (422 otherwise).",
    "Turning a provider's sync on applies to signups created from then on; earlier signups are not sent.",
    "commerce_platform.sync_enabled and sync_customers_tag are the same settings as tagging.enabled and tagging.customer_tag of PATCH /back_in_stock/settings.",
  ],
  kind: "write",
  input: integrationsPatchSchema,
  output: integrationsOutput,
  async handler(ctx, { input }) {
    const { secrets } = await ctx.services.platform();
    await patchIntegrations({ db: ctx.db, config: ctx.config, secrets, shopId: ctx.shopId }, input);
    return integrationsSnapshot(ctx.db, ctx.config, ctx.shopId);
  },
});
