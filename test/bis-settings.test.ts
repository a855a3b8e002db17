import { describe, expect, it } from "vitest";
import { DEFAULT_BACK_IN_STOCK_SETTINGS, loadBackInStockSettings } from "../src/back_in_stock/settings/settings.ts";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv();

const DEFAULTS = {
  channels: { email: { enabled: true }, sms: { enabled: true } },
  delivery: { batch_multiplier: 1, batch_interval_seconds: 300, minimum_restock_quantity: 1, reminder_delay_hours: 48 },
  compliance: { opt_in_required: false },
  tagging: { enabled: false, customer_tag: "back-in-stock" },
  attribution: { window_days: 7 },
};

async function patch(body: unknown, apiKey = env.key) {
  return invoke(env.app, "PATCH", "/back_in_stock/settings", { key: apiKey, body });
}

async function stored(): Promise<unknown> {
  const { rows } = await env.app.pool.query<{ settings: unknown }>("select settings from bis_settings where shop_id = $1", [env.shopId]);
  return rows[0]?.settings;
}

describe("back-in-stock settings", () => {
  it("reads the documented defaults before anything is set", async () => {
    const answer = await invoke(env.app, "GET", "/back_in_stock/settings", { key: env.key });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(DEFAULTS);
    expect(DEFAULT_BACK_IN_STOCK_SETTINGS).toEqual(DEFAULTS);
  });

  it("merges a deep-partial PATCH, keeping siblings, and stores only what was set", async () => {
    const first = await patch({ delivery: { batch_multiplier: 2.5 }, tagging: { enabled: true } });
    expect(first.status).toBe(202);
    expect(first.body).toEqual({
      ...DEFAULTS,
      delivery: { ...DEFAULTS.delivery, batch_multiplier: 2.5 },
      tagging: { enabled: true, customer_tag: "back-in-stock" },
    });
    const second = await patch({ delivery: { reminder_delay_hours: 72 }, channels: { sms: { enabled: false } } });
    expect(second.body).toEqual({
      ...DEFAULTS,
      channels: { email: { enabled: true }, sms: { enabled: false } },
      delivery: { ...DEFAULTS.delivery, batch_multiplier: 2.5, reminder_delay_hours: 72 },
      tagging: { enabled: true, customer_tag: "back-in-stock" },
    });
    expect((await invoke(env.app, "GET", "/back_in_stock/settings", { key: env.key })).body).toEqual(second.body);
    expect(await stored()).toEqual({
      delivery: { batch_multiplier: 2.5, reminder_delay_hours: 72 },
      tagging: { enabled: true },
      channels: { sms: { enabled: false } },
    });
    expect(await loadBackInStockSettings(env.app.pool, env.shopId)).toEqual(second.body);
  });

  it("refuses null like every PATCH does for a field that is not nullable (none is), and saves nothing", async () => {
    const before = await stored();
    const answer = await patch({ delivery: { batch_multiplier: null }, channels: { sms: null } });
    expect(answer).toMatchObject({ status: 422, body: { errors: ["channels.sms must be an object", "delivery.batch_multiplier must be a number"] } });
    expect(await stored()).toEqual(before);
    // the default is set again by sending it
    const reset = await patch({ delivery: { batch_multiplier: 1 }, channels: { sms: { enabled: true } } });
    expect(reset.body).toMatchObject({ delivery: { batch_multiplier: 1, reminder_delay_hours: 72 }, channels: { sms: { enabled: true } } });
  });

  it("refuses invalid values, one message per field, and saves nothing", async () => {
    const before = await stored();
    const answer = await patch({
      delivery: { batch_multiplier: 0.5, batch_interval_seconds: 1.5, minimum_restock_quantity: 0 },
      tagging: { customer_tag: "  " },
      attribution: { window_days: "7" },
      compliance: { opt_in: true },
    });
    expect(answer.status).toBe(422);
    expect((answer.body as { errors: string[] }).errors.sort()).toEqual(
      [
        "attribution.window_days must be a number",
        "compliance.opt_in is not allowed",
        "delivery.batch_interval_seconds must be an integer",
        "delivery.batch_multiplier must be at least 1",
        "delivery.minimum_restock_quantity must be at least 1",
        "tagging.customer_tag must not be empty",
      ].sort(),
    );
    expect(await stored()).toEqual(before);
  });

  it("validates the merged result: a stored value that no longer validates is reported and blocks the PATCH", async () => {
    await env.app.pool.query(`update bis_settings set settings = settings || '{"attribution": {"window_days": 0}}' where shop_id = $1`, [env.shopId]);
    const answer = await patch({ compliance: { opt_in_required: true } });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ errors: ["attribution.window_days must be at least 1"] });
    // Fixing that field in the same PATCH lets the rest through.
    const fixed = await patch({ compliance: { opt_in_required: true }, attribution: { window_days: 14 } });
    expect(fixed.status).toBe(202);
    expect(fixed.body).toMatchObject({ compliance: { opt_in_required: true }, attribution: { window_days: 14 } });
  });

  it("needs a body, refuses non-objects, and keeps shops apart", async () => {
    const empty = await invoke(env.app, "PATCH", "/back_in_stock/settings", { key: env.key });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ errors: ["Request body is not valid JSON"] });
    const wrong = await patch({ channels: { email: true } });
    expect(wrong.body).toEqual({ errors: ["channels.email must be an object"] });
    const other = await createShopWithKey(env.app.pool, "Other");
    expect((await invoke(env.app, "GET", "/back_in_stock/settings", { key: other.apiKey })).body).toEqual(DEFAULTS);
  });
});
