import { describe, expect, it } from "vitest";
import { api } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { createOffer, offerCall } from "./helpers/offers.ts";

/**
 * One rule for `null` in every deep-partial PATCH: on a nullable field it clears the field; on any
 * other field (or group) it is a 422 `<field> must be a <type>`, never ignored, never a 500.
 */
const env = useTestEnv({ shop: "Null shop" });

const patch = (path: string, body: unknown) => api(env.app, "PATCH", path, { key: env.key, body });

describe("null in a PATCH", () => {
  it("offer groups: null clears a nullable field and is refused on any other", async () => {
    const offer = await createOffer(env.app, env.key, { name: "Nulls" });
    const set = await offerCall(env.app, env.key, "PATCH", offer.id, "/shipping", { delivery: { type: "on_date", date: "2026-12-01T00:00:00Z" } });
    expect(set.status).toBe(202);
    const cleared = await offerCall(env.app, env.key, "PATCH", offer.id, "/shipping", { delivery: { type: "asap", date: null } });
    expect(cleared).toMatchObject({ status: 202, body: { delivery: { type: "asap", date: null } } });
    expect(await offerCall(env.app, env.key, "PATCH", offer.id, "/widget", { button: { text: null }, badge: null })).toMatchObject({
      status: 422,
      body: { errors: ["button.text must be a string", "badge must be an object"] },
    });
    expect(await offerCall(env.app, env.key, "PATCH", offer.id, "", { name: null })).toMatchObject({ status: 422, body: { errors: ["name must be a string"] } });
  });

  it("back-in-stock settings: null on a setting is refused like anywhere else, and nothing is saved", async () => {
    const before = await api(env.app, "GET", "/back_in_stock/settings", { key: env.key });
    const answer = await patch("/back_in_stock/settings", { delivery: { batch_multiplier: null, reminder_delay_hours: 12 }, channels: { sms: null } });
    expect(answer).toMatchObject({
      status: 422,
      body: { errors: ["channels.sms must be an object", "delivery.batch_multiplier must be a number"] },
    });
    expect((await api(env.app, "GET", "/back_in_stock/settings", { key: env.key })).body).toEqual(before.body);
    expect(await patch("/back_in_stock/settings", { tagging: null })).toMatchObject({ status: 422, body: { errors: ["tagging must be an object"] } });
  });

  it("templates and account languages: null is refused with the field's type", async () => {
    expect(await patch("/back_in_stock/templates/initial/en", { enabled: null, email: { subject: null } })).toMatchObject({
      status: 422,
      body: { errors: ["enabled must be a boolean", "email.subject must be a string"] },
    });
    expect(await patch("/account/languages", { multi_language_enabled: null, app_locale: null })).toMatchObject({
      status: 422,
      body: { errors: ["app_locale must be a locale", "multi_language_enabled must be a boolean"] },
    });
  });
});
