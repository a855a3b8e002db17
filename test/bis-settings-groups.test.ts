import { describe, expect, it } from "vitest";
import { DEFAULT_BACK_IN_STOCK_SETTINGS, loadBackInStockSettings } from "../src/back_in_stock/settings/settings.ts";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv();

const GROUPS = ["channels", "delivery", "compliance", "tagging", "attribution"] as const;

async function stored(): Promise<unknown> {
  const { rows } = await env.app.pool.query<{ settings: unknown }>("select settings from bis_settings where shop_id = $1", [env.shopId]);
  return rows[0]?.settings;
}

const patch = (group: string, body: unknown, key = env.key) => invoke(env.app, "PATCH", `/back_in_stock/settings/${group}`, { key, body });

describe("back-in-stock settings by group", () => {
  it("reads every group's defaults, as the whole settings show them", async () => {
    const whole = (await invoke(env.app, "GET", "/back_in_stock/settings", { key: env.key })).body as Record<string, unknown>;
    for (const group of GROUPS) {
      const answer = await invoke(env.app, "GET", `/back_in_stock/settings/${group}`, { key: env.key });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual(DEFAULT_BACK_IN_STOCK_SETTINGS[group]);
      expect(answer.body).toEqual(whole[group]);
    }
  });

  it("merges a deep-partial PATCH of one group, keeps the other groups and siblings, and the alert pipeline reads it", async () => {
    const answer = await patch("channels", { sms: { enabled: false } });
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({ email: { enabled: true }, sms: { enabled: false } });
    const delivery = await patch("delivery", { batch_multiplier: 3, reminder_delay_hours: 24 });
    expect(delivery.body).toEqual({ ...DEFAULT_BACK_IN_STOCK_SETTINGS.delivery, batch_multiplier: 3, reminder_delay_hours: 24 });
    expect(await stored()).toEqual({ channels: { sms: { enabled: false } }, delivery: { batch_multiplier: 3, reminder_delay_hours: 24 } });
    const settings = await loadBackInStockSettings(env.app.pool, env.shopId);
    expect(settings.channels.sms.enabled).toBe(false);
    expect(settings.delivery.batch_multiplier).toBe(3);
    expect((await invoke(env.app, "GET", "/back_in_stock/settings/delivery", { key: env.key })).body).toEqual(delivery.body);
    expect((await invoke(env.app, "GET", "/back_in_stock/settings", { key: env.key })).body).toMatchObject({
      channels: { sms: { enabled: false } },
      tagging: DEFAULT_BACK_IN_STOCK_SETTINGS.tagging,
    });
    const tagging = await patch("tagging", { enabled: true, customer_tag: "restock-fan" });
    expect(tagging).toMatchObject({ status: 202, body: { enabled: true, customer_tag: "restock-fan" } });
    const compliance = await patch("compliance", { opt_in_required: true });
    expect(compliance).toMatchObject({ status: 202, body: { opt_in_required: true } });
    const attribution = await patch("attribution", { window_days: 30 });
    expect(attribution).toMatchObject({ status: 202, body: { window_days: 30 } });
  });

  it("refuses invalid fields, named as in the group's body, one message each, and saves nothing", async () => {
    const before = await stored();
    const answer = await patch("delivery", { batch_multiplier: 0.5, batch_interval_seconds: null, delivery: { batch_multiplier: 2 } });
    expect(answer.status).toBe(422);
    expect((answer.body as { errors: string[] }).errors.sort()).toEqual(
      ["batch_interval_seconds must be a number", "batch_multiplier must be at least 1", "delivery is not allowed"].sort(),
    );
    expect((await patch("channels", { email: true })).body).toEqual({ errors: ["email must be an object"] });
    expect((await patch("tagging", { customer_tag: "" })).body).toEqual({ errors: ["customer_tag must not be empty"] });
    expect((await invoke(env.app, "PATCH", "/back_in_stock/settings/compliance", { key: env.key })).body).toEqual({ errors: ["Request body is not valid JSON"] });
    expect(await stored()).toEqual(before);
  });

  it("validates the merged whole: a stored value that no longer validates blocks the PATCH, named by the body's path in the group and in full elsewhere", async () => {
    await env.app.pool.query(`update bis_settings set settings = settings || '{"attribution": {"window_days": 0}}' where shop_id = $1`, [env.shopId]);
    const before = await stored();
    const other = await patch("compliance", { opt_in_required: false });
    expect(other).toMatchObject({ status: 422, body: { errors: ["attribution.window_days must be at least 1"] } });
    const same = await patch("attribution", {});
    expect(same).toMatchObject({ status: 422, body: { errors: ["window_days must be at least 1"] } });
    expect(await stored()).toEqual(before);
    const fixed = await patch("attribution", { window_days: 14 });
    expect(fixed).toMatchObject({ status: 202, body: { window_days: 14 } });
    expect((await patch("compliance", { opt_in_required: false })).status).toBe(202);
  });

  it("has no action for a group that does not exist: 404", async () => {
    const read = await invoke(env.app, "GET", "/back_in_stock/settings/nope", { key: env.key });
    expect(read).toMatchObject({ status: 404, body: { errors: ["No v2 action registered for GET /back_in_stock/settings/nope: see GET /back_in_stock/settings/help for the actions under /back_in_stock/settings"] } });
    const write = await patch("templates", { enabled: true });
    expect(write).toMatchObject({ status: 404, body: { errors: ["No v2 action registered for PATCH /back_in_stock/settings/templates: see GET /back_in_stock/settings/help for the actions under /back_in_stock/settings"] } });
  });

  it("keeps shops apart", async () => {
    const other = await createShopWithKey(env.app.pool, "Other groups shop");
    expect((await invoke(env.app, "GET", "/back_in_stock/settings/channels", { key: other.apiKey })).body).toEqual(DEFAULT_BACK_IN_STOCK_SETTINGS.channels);
    expect((await patch("channels", { email: { enabled: false } }, other.apiKey)).status).toBe(202);
    expect((await invoke(env.app, "GET", "/back_in_stock/settings/channels", { key: env.key })).body).toMatchObject({ email: { enabled: true } });
  });
});
