import { describe, expect, it } from "vitest";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv({ emulator: { seed: { products: 1, variantsPerProduct: 1 } }, connect: true });

describe("account languages", () => {
  it("reads the defaults", async () => {
    const answer = await invoke(env.app, "GET", "/account/languages", { key: env.key });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      default_locale: "en",
      app_locale: "en",
      multi_language_enabled: false,
      product_translations_enabled: false,
    });
  });

  it("changes app_locale only, and answers 202 with the committed state", async () => {
    const answer = await invoke(env.app, "PATCH", "/account/languages", { key: env.key, body: { app_locale: "fr" } });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ app_locale: "fr", default_locale: "en" });
  });

  it("lists published locales only while multi-language is on", async () => {
    const on = await invoke(env.app, "PATCH", "/account/languages", { key: env.key, body: { multi_language_enabled: true } });
    expect(on.body).toMatchObject({ multi_language_enabled: true, published_locales: ["en"] });
  });

  it("refuses product translations until the platform grants read_translations (409); it asks the platform, not a stored flag", async () => {
    // A stale local record of the grant does not count: the platform's answer does.
    await env.app.pool.query("update shops set granted_scopes = '{read_translations}' where id = $1", [env.shopId]);
    const refused = await invoke(env.app, "PATCH", "/account/languages", { key: env.key, body: { product_translations_enabled: true } });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ errors: [expect.stringContaining("read_translations")] });

    env.emulator.app.grant(["read_translations"]);
    const granted = await invoke(env.app, "PATCH", "/account/languages", { key: env.key, body: { product_translations_enabled: true } });
    expect(granted.status).toBe(202);
    expect(granted.body).toMatchObject({ product_translations_enabled: true });

    // Revoked on the platform: turning it on again is refused.
    env.emulator.app.revoke(["read_translations"]);
    const again = await invoke(env.app, "PATCH", "/account/languages", { key: env.key, body: { product_translations_enabled: true } });
    expect(again.status).toBe(409);
  });

  it("refuses product translations for a shop not connected to the platform (409)", async () => {
    const { apiKey, shopId } = await createShopWithKey(env.app.pool, "Unconnected");
    await env.app.pool.query("update shops set multi_language_enabled = true where id = $1", [shopId]);
    const refused = await invoke(env.app, "PATCH", "/account/languages", { key: apiKey, body: { product_translations_enabled: true } });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ errors: [expect.stringContaining("not connected")] });
  });

  it("turns product translations off with multi-language", async () => {
    const off = await invoke(env.app, "PATCH", "/account/languages", { key: env.key, body: { multi_language_enabled: false } });
    expect(off.status).toBe(202);
    expect(off.body).toEqual({
      default_locale: "en",
      app_locale: "fr",
      multi_language_enabled: false,
      product_translations_enabled: false,
    });
  });

  it("validates each field with the stable messages", async () => {
    const answer = await invoke(env.app, "PATCH", "/account/languages", {
      key: env.key,
      body: { app_locale: 42, multi_language_enabled: "yes", colour: "blue" },
    });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({
      errors: ["app_locale must be a locale", "multi_language_enabled must be a boolean", "colour is not allowed"],
    });
  });

  it("needs a body on PATCH: none is 400 like malformed JSON (decision 0195)", async () => {
    const answer = await invoke(env.app, "PATCH", "/account/languages", { key: env.key });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ errors: ["Request body is not valid JSON"] });
  });
});
