import { z } from "zod";
import { type AnyAction, defineAction } from "../../../core/action.ts";
import { deepPartialStrict } from "../../../core/deep-partial.ts";
import { documentActions } from "../../../core/settings-document.ts";
import {
  BACK_IN_STOCK_SETTINGS_GROUPS,
  type BackInStockSettingsGroup,
  DEFAULT_BACK_IN_STOCK_SETTINGS,
  backInStockSettingsDocument,
  loadBackInStockSettings,
  settingsGroupSchema,
  updateBackInStockSettingsGroup,
} from "../settings.ts";

const d = DEFAULT_BACK_IN_STOCK_SETTINGS;

/** What each group holds, as the descriptions say it. */
const GROUP_FIELDS: Record<BackInStockSettingsGroup, string> = {
  channels: `channels.email.enabled, channels.sms.enabled (default ${String(d.channels.email.enabled)}, ${String(d.channels.sms.enabled)}; a signup on a channel that is off is refused)`,
  delivery: `delivery.batch_multiplier (number 1-100, default ${d.delivery.batch_multiplier}: a batch alerts at most multiplier x available units signups, oldest first), \
delivery.batch_interval_seconds (integer 0-86400, default ${d.delivery.batch_interval_seconds}: time between batches of one alert run), \
delivery.minimum_restock_quantity (integer >= 1, default ${d.delivery.minimum_restock_quantity}: alerts go out only while available stock is at least this), \
delivery.reminder_delay_hours (integer 1-2160, default ${d.delivery.reminder_delay_hours})`,
  compliance: `compliance.opt_in_required (default ${String(d.compliance.opt_in_required)}: signups then need consent: true)`,
  tagging: `tagging.enabled (default ${String(d.tagging.enabled)}) and tagging.customer_tag (default "${d.tagging.customer_tag}"): the tag added to the platform customer (tagsAdd) at signup when the signup carries a customer_id`,
  attribution: `attribution.window_days (integer 1-365, default ${d.attribution.window_days}: an order this many days after an alert converts the signup)`,
};

const FIELDS = BACK_IN_STOCK_SETTINGS_GROUPS.map((g) => GROUP_FIELDS[g]).join("; ");

const WHOLE_NOTES = [
  "Each group also has its own GET and PATCH under /back_in_stock/settings/{group} (channels, delivery, compliance, tagging, attribution).",
  "Settings apply to alert runs that start, and batches that begin, after the change.",
];

export const [getBackInStockSettings, patchBackInStockSettings] = documentActions(backInStockSettingsDocument, {
  name: "back_in_stock.settings",
  path: "/back_in_stock/settings",
  get: {
    aliases: ["show back in stock settings", "read all back in stock settings"],
    description: `Back-in-stock settings, complete: what the merchant set over the defaults. ${FIELDS}.`,
    notes: WHOLE_NOTES,
  },
  update: {
    aliases: ["change back in stock settings", "update several back in stock settings at once"],
    description: `Changes back-in-stock settings (deep partial: only the keys sent change; no setting is nullable, so null is refused: 422 "<field> must be a <type>"). The merged result is validated as a whole and nothing is saved if any field is invalid (422, one message per field). Answers the complete settings. ${FIELDS}.`,
    notes: WHOLE_NOTES,
  },
});

const GROUP_ALIASES: Record<BackInStockSettingsGroup, { get: string[]; update: string[] }> = {
  channels: {
    get: ["are back in stock e-mail and sms alerts on", "show back in stock channel settings"],
    update: ["turn back in stock sms alerts on or off", "turn back in stock e-mail alerts on or off", "change back in stock channels"],
  },
  delivery: {
    get: ["show back in stock batching and reminder delay", "read back in stock delivery settings"],
    update: ["change back in stock batch size or interval", "set the back in stock reminder delay", "set the minimum restock quantity for alerts"],
  },
  compliance: {
    get: ["is consent required for back in stock signups", "read back in stock compliance settings"],
    update: ["require consent for back in stock signups", "change back in stock opt in rule"],
  },
  tagging: {
    get: ["which tag do back in stock customers get", "read back in stock customer tagging"],
    update: ["tag customers who sign up for back in stock", "change the back in stock customer tag"],
  },
  attribution: {
    get: ["read the back in stock attribution window", "how long after an alert does an order count"],
    update: ["change the back in stock attribution window", "set how many days an alert converts an order"],
  },
};

function groupActions(group: BackInStockSettingsGroup): AnyAction[] {
  const schema = settingsGroupSchema(group);
  const patchSchema = deepPartialStrict(schema) as z.ZodType<Record<string, unknown>, Record<string, unknown>>;
  const fields = GROUP_FIELDS[group];
  return [
    defineAction({
      name: `back_in_stock.settings.${group}.get`,
      method: "GET",
      path: `/back_in_stock/settings/${group}`,
      aliases: GROUP_ALIASES[group].get,
      description: `The ${group} group of the back-in-stock settings, complete (what the merchant set over the defaults), as in GET /back_in_stock/settings: ${fields}. The field names here are relative to the group.`,
      kind: "read",
      input: z.strictObject({}),
      output: schema,
      async handler(ctx) {
        return (await loadBackInStockSettings(ctx.db, ctx.shopId))[group];
      },
    }),
    defineAction({
      name: `back_in_stock.settings.${group}.update`,
      method: "PATCH",
      path: `/back_in_stock/settings/${group}`,
      aliases: GROUP_ALIASES[group].update,
      description: `Changes the ${group} group of the back-in-stock settings (deep partial, field names relative to the group: only the keys sent change; null is refused). The merged settings are validated as a whole, like PATCH /back_in_stock/settings, and nothing is saved if any field is invalid (422, one message per field, named as in this body). Answers the group, complete. ${fields}.`,
      notes: ["The other groups are left as they are.", "A group that does not exist has no action: 404."],
      kind: "write",
      input: patchSchema,
      output: schema,
      async handler(ctx, { input }) {
        return (await updateBackInStockSettingsGroup(ctx.db, ctx.shopId, group, input))[group];
      },
    }),
  ];
}

/** GET and PATCH of every group: /back_in_stock/settings/channels, /delivery, /compliance, /tagging, /attribution. */
export const BACK_IN_STOCK_SETTINGS_GROUP_ACTIONS: readonly AnyAction[] = BACK_IN_STOCK_SETTINGS_GROUPS.flatMap(groupActions);
