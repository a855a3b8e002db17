import { beforeAll, describe, expect, it } from "vitest";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv({ shop: false });
const shopA = { id: "", key: "" };
const shopB = { id: "", key: "" };

beforeAll(async () => {
  ({ shopId: shopA.id, apiKey: shopA.key } = await createShopWithKey(env.app.pool, "Shop A"));
  ({ shopId: shopB.id, apiKey: shopB.key } = await createShopWithKey(env.app.pool, "Shop B"));
  // The same platform ids in both shops, so only the shop scope can tell them apart.
  for (const [shop, label] of [
    [shopA.id, "A"],
    [shopB.id, "B"],
  ] as const) {
    await env.app.pool.query(
      `insert into locations (shop_id, id, name, active) values ($1, 'loc-1', $2, true), ($1, 'loc-${label}', $2 || ' only', true)`,
      [shop, `Store ${label}`],
    );
    await env.app.pool.query(
      `insert into markets (shop_id, id, name, active, is_primary, countries, location_ids)
       values ($1, 'm-1', $2, true, true, $3, '{loc-1}')`,
      [shop, `Market ${label}`, label === "A" ? ["FR"] : ["US"]],
    );
  }
  await env.app.pool.query("update shops set default_locale = 'de', multi_language_enabled = true, published_locales = '{de,en}' where id = $1", [shopB.id]);
  await env.app.pool.query("insert into message_stage_settings (shop_id, area, stage, enabled) values ($1, 'back_in_stock', 'reminder', true)", [shopB.id]);
  await env.app.pool.query(
    "insert into message_templates (shop_id, area, stage, locale, channel, subject, body) values ($1, 'back_in_stock', 'initial', 'en', 'email', 'B subject', 'B body')",
    [shopB.id],
  );
});

/** Everything of a shop that the API can change or show, straight from the tables. */
async function snapshot(shopId: string): Promise<unknown> {
  const q = async (sql: string): Promise<unknown[]> => (await env.app.pool.query<Record<string, unknown>>(sql, [shopId])).rows;
  return {
    shop: await q(
      "select name, default_locale, app_locale, multi_language_enabled, product_translations_enabled, published_locales, granted_scopes, updated_at from shops where id = $1",
    ),
    locations: await q("select id, name, active, updated_at from locations where shop_id = $1 order by id"),
    markets: await q("select * from markets where shop_id = $1 order by id"),
    stages: await q("select area, stage, enabled, updated_at from message_stage_settings where shop_id = $1 order by area, stage"),
    templates: await q("select area, stage, locale, channel, subject, body, updated_at from message_templates where shop_id = $1 order by area, stage, locale, channel"),
    jobs: await q("select * from jobs where shop_id = $1 order by id"),
  };
}

describe("reads see only the key's shop", () => {
  it("languages", async () => {
    const a = await invoke(env.app, "GET", "/account/languages", { key: shopA.key });
    const b = await invoke(env.app, "GET", "/account/languages", { key: shopB.key });
    expect(a.body).toEqual({ default_locale: "en", app_locale: "en", multi_language_enabled: false, product_translations_enabled: false });
    expect(b.body).toMatchObject({ default_locale: "de", multi_language_enabled: true, published_locales: ["de", "en"] });
  });

  it("locations", async () => {
    const a = await invoke(env.app, "GET", "/account/locations", { key: shopA.key });
    expect(a.body).toEqual({
      locations: [
        { id: "loc-1", name: "Store A", active: true },
        { id: "loc-A", name: "Store A only", active: true },
      ],
    });
    const b = await invoke(env.app, "GET", "/account/locations", { key: shopB.key });
    expect((b.body as { locations: { id: string }[] }).locations.map((l) => l.id)).toEqual(["loc-1", "loc-B"]);
  });

  it("markets", async () => {
    const a = await invoke(env.app, "GET", "/account/markets?include_inactive=true", { key: shopA.key });
    expect(a.body).toEqual({
      multiple_markets: false,
      markets: [{ id: "m-1", name: "Market A", active: true, primary: true, countries: ["FR"], location_ids: ["loc-1"] }],
    });
  });

  it("templates and stage switches", async () => {
    const a = await invoke(env.app, "GET", "/back_in_stock/templates/initial/en", { key: shopA.key });
    expect(a.body).toMatchObject({ email: { customized: false }, enabled: true });
    expect((a.body as { email: { subject: string } }).email.subject).not.toBe("B subject");
    const aReminder = await invoke(env.app, "GET", "/back_in_stock/templates/reminder/en", { key: shopA.key });
    expect(aReminder.body).toMatchObject({ enabled: false });
    const b = await invoke(env.app, "GET", "/back_in_stock/templates/initial/en", { key: shopB.key });
    expect(b.body).toMatchObject({ email: { subject: "B subject", body: "B body", customized: true } });
    const bReminder = await invoke(env.app, "GET", "/back_in_stock/templates/reminder/en", { key: shopB.key });
    expect(bReminder.body).toMatchObject({ enabled: true });
  });
});

describe("writes change only the key's shop", () => {
  it("never touches shop B's rows, whatever A patches", async () => {
    const before = await snapshot(shopB.id);
    const writes: [string, unknown][] = [
      ["/account/languages", { app_locale: "fr", multi_language_enabled: true }],
      ["/account/languages", { multi_language_enabled: false }],
      ["/back_in_stock/templates/initial/en", { enabled: false, email: { subject: "A subject", body: "A body" }, sms: { body: "A sms" } }],
      ["/back_in_stock/templates/reminder/en", { enabled: false }],
      ["/back_in_stock/templates/signup_thank_you/de", { enabled: true, email: { subject: "A danke" } }],
    ];
    for (const [path, body] of writes) {
      const answer = await invoke(env.app, "PATCH", path, { key: shopA.key, body });
      expect(answer.status).toBe(202);
    }
    expect(await snapshot(shopB.id)).toEqual(before);

    // A's own rows did change.
    const a = await invoke(env.app, "GET", "/back_in_stock/templates/initial/en", { key: shopA.key });
    expect(a.body).toMatchObject({ enabled: false, email: { subject: "A subject", customized: true }, sms: { body: "A sms" } });
    const aLanguages = await invoke(env.app, "GET", "/account/languages", { key: shopA.key });
    expect(aLanguages.body).toMatchObject({ app_locale: "fr", multi_language_enabled: false });

    // And B still reads its own.
    const b = await invoke(env.app, "GET", "/back_in_stock/templates/initial/en", { key: shopB.key });
    expect(b.body).toMatchObject({ enabled: true, email: { subject: "B subject", customized: true }, sms: { customized: false } });
    const bLanguages = await invoke(env.app, "GET", "/account/languages", { key: shopB.key });
    expect(bLanguages.body).toMatchObject({ app_locale: "en", multi_language_enabled: true, default_locale: "de" });
  });
});

describe("jobs", () => {
  it("answers 404 for another shop's job and 200 for the owner", async () => {
    const { rows } = await env.app.pool.query<{ id: string }>(
      "insert into jobs (shop_id, kind, status, total, processed) values ($1, 'test_export', 'running', 10, 4) returning id",
      [shopB.id],
    );
    const id = rows[0]?.id ?? "";
    const foreign = await invoke(env.app, "GET", `/jobs/${id}`, { key: shopA.key });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ errors: [`Job not found: ${id}`] });
    const own = await invoke(env.app, "GET", `/jobs/${id}`, { key: shopB.key });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ id, kind: "test_export", status: "running", total: 10, processed: 4, result: null, errors: [], started_at: null, finished_at: null });
  });

  it("answers 404 to every shop for a job without a shop", async () => {
    const { rows } = await env.app.pool.query<{ id: string }>("insert into jobs (shop_id, kind) values (null, 'maintenance') returning id");
    const id = rows[0]?.id ?? "";
    for (const key of [shopA.key, shopB.key]) {
      const answer = await invoke(env.app, "GET", `/jobs/${id}`, { key });
      expect(answer.body).toEqual({ errors: [`Job not found: ${id}`] });
    }
  });
});
