import { parseArgs } from "node:util";
import { PLAN_NAMES, type PlanName, loadPlan, setPlan } from "../account/plans.ts";
import { oneOf, positionals, requireOption, usageErrors } from "./args.ts";
import type { CommandParser } from "./context.ts";
import { UsageError } from "./errors.ts";
import { printJsonLine } from "./output.ts";
import { requireShop } from "./shop-lookup.ts";

/** The plan as printed: the shop, the plan, the quota in force and whether it is a custom one. */
function printed(shopId: string, plan: Awaited<ReturnType<typeof loadPlan>>): Record<string, unknown> {
  return { shop_id: shopId, plan: plan.plan, monthly_alert_limit: plan.monthlyAlertLimit, custom_limit: plan.customLimit };
}

/** plans set --shop SHOP_ID --plan NAME [--limit N]: the shop's plan; --limit a custom monthly quota (omitted: the plan's). */
const set: CommandParser = (args) => {
  const options = usageErrors(() => {
    const parsed = parseArgs({ args, options: { shop: { type: "string" }, plan: { type: "string" }, limit: { type: "string" } }, allowPositionals: true, strict: true });
    positionals(parsed.positionals, []);
    const plan = oneOf(requireOption(parsed.values.plan, "plan"), "plan", PLAN_NAMES) as PlanName;
    const raw = parsed.values.limit;
    if (raw !== undefined && (!/^\d{1,9}$/.test(raw) || Number(raw) > 2_147_483_647)) throw new UsageError("--limit must be a non-negative integer");
    return { shopId: requireOption(parsed.values.shop, "shop").trim(), plan, limit: raw === undefined ? null : Number(raw) };
  });
  return {
    ensureSchema: true,
    async run({ pool }) {
      await requireShop(pool, options.shopId);
      printJsonLine(printed(options.shopId, await setPlan(pool, options.shopId, options.plan, options.limit)));
    },
  };
};

/** plans show --shop SHOP_ID. */
const show: CommandParser = (args) => {
  const shopId = usageErrors(() => {
    const parsed = parseArgs({ args, options: { shop: { type: "string" } }, allowPositionals: true, strict: true });
    positionals(parsed.positionals, []);
    return requireOption(parsed.values.shop, "shop").trim();
  });
  return {
    ensureSchema: true,
    async run({ pool }) {
      await requireShop(pool, shopId);
      printJsonLine(printed(shopId, await loadPlan(pool, shopId)));
    },
  };
};

export const plansCommands: Record<string, CommandParser> = { set, show };
