import { z } from "zod";
import { defineAction } from "../../core/action.ts";
import {
  DEFAULT_BACK_IN_STOCK_SETTINGS,
  backInStockSettingsPatchSchema,
  loadBackInStockSettings,
  updateBackInStockSettings,
} from "../../back_in_stock/settings/settings-store.ts";

const d = DEFAULT_BACK_IN_STOCK_SETTINGS;

const FIELDS = `channels.email.enabled, channels.sms.enabled (default ${String(d.channels.email.enabled)}, ${String(d.channels.sms.enabled)}; a signup on a channel that is off is refused); \
delivery.batch_multiplier (number 1-100, default ${d.delivery.batch_multiplier}: a batch alerts at most multiplier x available units signups, oldest first), \
delivery.batch_interval_seconds (integer 0-86400, default ${d.delivery.batch_interval_seconds}: time between batches of one alert run), \
delivery.minimum_restock_quantity (integer >= 1, default ${d.delivery.minimum_restock_quantity}: alerts go out only while available stock is at least this), \
delivery.reminder_delay_hours (integer 1-2160, default ${d.delivery.reminder_delay_hours}); \
compliance.opt_in_required (default ${String(d.compliance.opt_in_required)}: signups then need consent: true); \
tagging.enabled (default ${String(d.tagging.enabled)}) and tagging.customer_tag (default "${d.tagging.customer_tag}"): the tag added to the platform customer (tagsAdd) at signup when the signup carries a customer_id; \
attribution.window_days (integer 1-365, default ${d.attribution.window_days}: an order this many days after an alert converts the signup)`;

export const getBackInStockSettings = defineAction({
  name: "back_in_stock.settings.get",
  method: "GET",
  path: "/back_in_stock/settings",
  description: `Back-in-stock settings, complete: what the merchant set over the defaults. ${FIELDS}.`,
  kind: "read",
  input: z.strictObject({}),
  async handler(ctx) {
    return loadBackInStockSettings(ctx.db, ctx.shopId);
  },
});

export const patchBackInStockSettings = defineAction({
  name: "back_in_stock.settings.update",
  method: "PATCH",
  path: "/back_in_stock/settings",
  description: `Changes back-in-stock settings (deep partial: only the keys sent change; no setting is nullable, so null is refused: 422 "<field> must be a <type>"). The merged result is validated as a whole and nothing is saved if any field is invalid (422, one message per field). Answers the complete settings. ${FIELDS}.`,
  kind: "write",
  input: backInStockSettingsPatchSchema,
  async handler(ctx, { input }) {
    return updateBackInStockSettings(ctx.db, ctx.shopId, input);
  },
});
