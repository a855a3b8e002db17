import { beforeAll, describe, expect, it } from "vitest";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv({ shop: "Shop with locations" });
let emptyKey: string;

beforeAll(async () => {
  ({ apiKey: emptyKey } = await createShopWithKey(env.app.pool, "Empty shop"));
  await env.app.pool.query(
    `insert into locations (shop_id, id, name, active) values
       ($1, 'gid://loc/2', 'Warehouse', true),
       ($1, 'gid://loc/1', 'Flagship store', true),
       ($1, 'gid://loc/3', 'Closed outlet', false)`,
    [env.shopId],
  );
  await env.app.pool.query(
    `insert into markets (shop_id, id, name, active, is_primary, countries, location_ids) values
       ($1, 'm-eu', 'Europe', true, false, '{FR,DE,ES}', '{gid://loc/2}'),
       ($1, 'm-us', 'United States', true, true, '{US}', '{gid://loc/1,gid://loc/2}'),
       ($1, 'm-jp', 'Japan', false, false, '{JP}', '{}')`,
    [env.shopId],
  );
});

describe("GET /account/locations", () => {
  it("lists the shop's locations with id, name and active", async () => {
    const answer = await invoke(env.app, "GET", "/account/locations", { key: env.key });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      locations: [
        { id: "gid://loc/3", name: "Closed outlet", active: false },
        { id: "gid://loc/1", name: "Flagship store", active: true },
        { id: "gid://loc/2", name: "Warehouse", active: true },
      ],
    });
  });

  it("answers an empty list for a shop without locations", async () => {
    const answer = await invoke(env.app, "GET", "/account/locations", { key: emptyKey });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ locations: [] });
  });

  it("refuses an unknown query parameter", async () => {
    const answer = await invoke(env.app, "GET", "/account/locations?active=true", { key: env.key });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ errors: ["active is not allowed"] });
  });
});

describe("GET /account/markets", () => {
  it("lists only active markets by default, primary first, with countries and location ids", async () => {
    const answer = await invoke(env.app, "GET", "/account/markets", { key: env.key });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      multiple_markets: true,
      markets: [
        { id: "m-us", name: "United States", active: true, primary: true, countries: ["US"], location_ids: ["gid://loc/1", "gid://loc/2"] },
        { id: "m-eu", name: "Europe", active: true, primary: false, countries: ["FR", "DE", "ES"], location_ids: ["gid://loc/2"] },
      ],
    });
    expect(await invoke(env.app, "GET", "/account/markets?include_inactive=false", { key: env.key })).toMatchObject({ body: answer.body });
  });

  it("includes inactive markets on request, without changing multiple_markets", async () => {
    const answer = await invoke(env.app, "GET", "/account/markets?include_inactive=true", { key: env.key });
    expect(answer.status).toBe(200);
    const body = answer.body as { multiple_markets: boolean; markets: { id: string; active: boolean; countries: string[]; location_ids: string[] }[] };
    expect(body.multiple_markets).toBe(true);
    expect(body.markets.map((m) => m.id)).toEqual(["m-us", "m-eu", "m-jp"]);
    expect(body.markets[2]).toEqual({ id: "m-jp", name: "Japan", active: false, primary: false, countries: ["JP"], location_ids: [] });
  });

  it("says multiple_markets false when only one market is active, even with inactive ones listed", async () => {
    const { apiKey, shopId: single } = await createShopWithKey(env.app.pool, "Single market");
    await env.app.pool.query(
      `insert into markets (shop_id, id, name, active, is_primary, countries) values
         ($1, 'm-home', 'Home', true, true, '{GB}'), ($1, 'm-old', 'Old', false, false, '{IE}')`,
      [single],
    );
    const active = await invoke(env.app, "GET", "/account/markets", { key: apiKey });
    expect(active.body).toEqual({
      multiple_markets: false,
      markets: [{ id: "m-home", name: "Home", active: true, primary: true, countries: ["GB"], location_ids: [] }],
    });
    const all = await invoke(env.app, "GET", "/account/markets?include_inactive=true", { key: apiKey });
    expect(all.body).toMatchObject({ multiple_markets: false, markets: [{ id: "m-home" }, { id: "m-old" }] });
  });

  it("answers no markets for a shop without any", async () => {
    const answer = await invoke(env.app, "GET", "/account/markets?include_inactive=true", { key: emptyKey });
    expect(answer.body).toEqual({ multiple_markets: false, markets: [] });
  });

  it("refuses a value other than true or false, and unknown parameters", async () => {
    const maybe = await invoke(env.app, "GET", "/account/markets?include_inactive=maybe", { key: env.key });
    expect(maybe.status).toBe(422);
    expect(maybe.body).toEqual({ errors: ["include_inactive must be one of: true, false"] });
    const unknown = await invoke(env.app, "GET", "/account/markets?country=FR&include_inactive=true", { key: env.key });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toEqual({ errors: ["country is not allowed"] });
  });
});
