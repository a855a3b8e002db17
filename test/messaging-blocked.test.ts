import { describe, expect, it } from "vitest";
import { BLOCKED_REASONS } from "../src/messaging/blocked.ts";
import { BLOCKED_REASONS as PREORDER_BLOCKED_REASONS } from "../src/preorders/notifications/ledger.ts";
import { invoke } from "./helpers/app.ts";
import { seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";

// One blocked-reason vocabulary: a stage switched off is `stage_disabled` in every area (back in
// stock said `template_disabled`).

const env = useTestEnv({ shop: "Vocabulary Shop" });

describe("blocked reasons", () => {
  it("are one list that every area's reasons come from", () => {
    for (const reason of PREORDER_BLOCKED_REASONS) expect(BLOCKED_REASONS).toContain(reason);
    expect(BLOCKED_REASONS).not.toContain("template_disabled");
  });

  it("a back-in-stock alert refused because its stage is off is stage_disabled, as in preorders", async () => {
    await seedVariants(env.app.pool, env.shopId, [{ n: 51, product: 51, available: 0 }]);
    const { rows } = await env.app.pool.query<{ id: string }>(
      "insert into bis_signups (shop_id, variant_id, channel, contact, consent) values ($1, $2, 'email', 'off@example.com', true) returning id",
      [env.shopId, variantGid(51)],
    );
    const off = await invoke(env.app, "PATCH", "/back_in_stock/templates/initial/en", { key: env.key, body: { enabled: false } });
    expect(off.status).toBe(202);
    const answer = await invoke(env.app, "POST", `/back_in_stock/signups/${rows[0]?.id ?? ""}/notify`, { key: env.key });
    expect(answer.status).toBe(409);
    expect((answer.body as { errors: string[] }).errors[0]).toMatch(/\(stage_disabled\)$/);
    const log = await invoke(env.app, "GET", "/back_in_stock/notifications?status=blocked", { key: env.key });
    expect((log.body as { notifications: { blocked_reason: string }[] }).notifications.map((n) => n.blocked_reason)).toEqual(["stage_disabled"]);
  });
});
