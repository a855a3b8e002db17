import { describe, expect, it } from "vitest";
import { createShopWithKey } from "./helpers/app.ts";
import { runCli } from "./helpers/cli.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv({ app: false, shop: false, poolSize: 2 });

const cli = (...args: string[]) => runCli(env.db.url, args);

describe("cli: plans", () => {
  it("shows the default plan, puts a shop on a plan with or without a custom limit, and refuses bad input", async () => {
    const { shopId } = await createShopWithKey(env.pool, "Plan CLI Shop");
    const shown = await cli("plans", "show", "--shop", shopId);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual({ shop_id: shopId, plan: "growth", monthly_alert_limit: 25_000, custom_limit: false });

    const custom = await cli("plans", "set", "--shop", shopId, "--plan", "starter", "--limit", "40");
    expect(custom.code).toBe(0);
    expect(JSON.parse(custom.stdout)).toEqual({ shop_id: shopId, plan: "starter", monthly_alert_limit: 40, custom_limit: true });
    const { rows } = await env.pool.query<{ plan: string; monthly_alert_limit: number | null }>("select plan, monthly_alert_limit from account_settings where shop_id = $1", [shopId]);
    expect(rows[0]).toEqual({ plan: "starter", monthly_alert_limit: 40 });

    const plain = await cli("plans", "set", "--shop", shopId, "--plan", "free");
    expect(JSON.parse(plain.stdout)).toEqual({ shop_id: shopId, plan: "free", monthly_alert_limit: 100, custom_limit: false });

    const badPlan = await cli("plans", "set", "--shop", shopId, "--plan", "gold");
    expect(badPlan.code).toBe(2);
    expect(badPlan.stderr).toContain("--plan must be one of: free, starter, growth, scale");
    const badLimit = await cli("plans", "set", "--shop", shopId, "--plan", "free", "--limit", "-1");
    expect(badLimit.code).toBe(2);
    const unknown = await cli("plans", "show", "--shop", "00000000-0000-0000-0000-000000000000");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("Shop not found: 00000000-0000-0000-0000-000000000000");
  });
});
