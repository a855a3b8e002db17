import { beforeAll, describe, expect, it } from "vitest";
import { seedPreorderOrder } from "./helpers/preorders.ts";
import { invoke } from "./helpers/app.ts";
import { type Json, newOffer, offerCall } from "./helpers/offers.ts";
import { mirrorVariants, useSyncEnv, waitJob, waitSynced } from "./helpers/offer-sync.ts";

const env = useSyncEnv({ products: 8, variantsPerProduct: 3, locations: 3, markets: 2, collections: 2 });
/** Tracked variants with the platform's DENY policy: A sold out, B in stock, C sold out (only an offer without continue_selling holds it). */
let a: { legacy: number; gid: string; productId: string };
let b: { legacy: number; gid: string };
let c: { legacy: number; gid: string };
let activeLocations: string[];
let markets: string[];

beforeAll(async () => {
  const candidates = env.emulator.store.variants.filter((v) => v.tracked && v.inventoryPolicy === "DENY");
  const [first, second, third] = candidates;
  if (!first || !second || !third) throw new Error("the seeded catalog has too few tracked DENY variants");
  const mirror = await mirrorVariants(env);
  a = { legacy: first.id, gid: `gid://shopify/ProductVariant/${first.id}`, productId: mirror.find((v) => v.legacy_id === first.id)?.product_id ?? "" };
  b = { legacy: second.id, gid: `gid://shopify/ProductVariant/${second.id}` };
  c = { legacy: third.id, gid: `gid://shopify/ProductVariant/${third.id}` };
  const { rows } = await env.app.pool.query<{ id: string; active: boolean }>("select id, active from locations where shop_id = $1 order by id", [env.shopId]);
  activeLocations = rows.filter((r) => r.active).map((r) => r.id);
  expect(rows.length).toBe(3);
  markets = (await env.app.pool.query<{ id: string }>("select id from markets where shop_id = $1 order by id", [env.shopId])).rows.map((r) => r.id);
  // A sold out everywhere; B with 5 at the first active location only.
  for (const location of activeLocations) {
    await setStock(a.legacy, location, 0);
    await setStock(c.legacy, location, 0);
    await setStock(b.legacy, location, location === activeLocations[0] ? 5 : 0);
  }
  await env.startWorker();
});

async function setStock(variant: number, location: string, available: number): Promise<void> {
  const response = await fetch(`${env.emulator.origin}/admin/inventory`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ variant_id: variant, location_id: location, available }),
  });
  expect(response.status).toBe(200);
}

interface OfferDiagnosis {
  offer_id: string;
  name: string;
  status: string;
  preorder_button: boolean;
  reasons: { code: string; message: string }[];
  notes: { code: string; message: string }[];
}
interface VariantStatus {
  variant_id: number;
  gid: string;
  found: boolean;
  tracked: boolean | null;
  available: number | null;
  locations: { location_id: string; name: string | null; available: number; active: boolean }[];
  offers: OfferDiagnosis[];
}
interface StatusAnswer {
  inventory_source: string;
  warnings: string[];
  variants: VariantStatus[];
}

async function status(query: string): Promise<StatusAnswer> {
  const answer = await invoke(env.app, "GET", `/preorders/products/inventory_status?${query}`, { key: env.key });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body as StatusAnswer;
}

function diagnosis(answer: StatusAnswer, variant: number, offerId: string): OfferDiagnosis {
  const found = answer.variants.find((v) => v.variant_id === variant)?.offers.find((o) => o.offer_id === offerId);
  if (!found) throw new Error(`no diagnosis of offer ${offerId} for variant ${variant}: ${JSON.stringify(answer)}`);
  return found;
}
const codes = (d: OfferDiagnosis) => d.reasons.map((r) => r.code);

describe("GET /preorders/products/inventory_status", () => {
  it("reads live inventory per active location; a sold-out variant of an active, synced offer shows the button, one in stock does not", async () => {
    const id = await newOffer(env, { name: "Diagnosed", products: { variant_ids: [a.legacy, b.legacy] } }, { enable: true });
    await waitSynced(env, id);
    const answer = await status(`variant_ids=${a.legacy},${b.legacy}`);
    expect(answer.inventory_source).toBe("platform");
    expect(answer.warnings).toEqual([]);
    const [va, vb] = answer.variants;
    expect(va).toMatchObject({ variant_id: a.legacy, gid: a.gid, found: true, tracked: true, available: 0 });
    expect(va?.locations.map((l) => l.location_id).sort()).toEqual([...activeLocations].sort());
    expect(vb).toMatchObject({ variant_id: b.legacy, available: 5 });
    expect(vb?.locations.find((l) => l.location_id === activeLocations[0])).toMatchObject({ available: 5, active: true });

    const shows = diagnosis(answer, a.legacy, id);
    expect(shows).toMatchObject({ name: "Diagnosed", status: "active", preorder_button: true, reasons: [] });
    // continue_selling is on: the sync set A's policy to CONTINUE on the platform (it was DENY), so no
    // inventory_policy_deny note is left.
    expect(shows.notes.map((n) => n.code)).toEqual([]);
    expect((answer.variants[0] as VariantStatus & { inventory_policy: string }).inventory_policy).toBe("CONTINUE");
    const inStock = diagnosis(answer, b.legacy, id);
    expect(inStock.preorder_button).toBe(false);
    expect(codes(inStock)).toEqual(["in_stock"]);
  });

  it("inventory.provider app: the preorder button shows for a variant in stock on the platform (a note says why); platform: in_stock holds it back", async () => {
    const app = await newOffer(env, { name: "App stock", products: { variant_ids: [b.legacy] }, inventory: { provider: "app" } }, { enable: true });
    const platform = await newOffer(env, { name: "Platform stock", products: { variant_ids: [b.legacy] }, inventory: { provider: "platform" } }, { enable: true });
    for (const id of [app, platform]) await waitSynced(env, id);
    const answer = await status(`variant_ids=${b.legacy}`);
    const byApp = diagnosis(answer, b.legacy, app);
    expect(byApp).toMatchObject({ preorder_button: true, reasons: [] });
    expect(byApp.notes.map((n) => n.code)).toEqual(["app_inventory"]);
    expect(codes(diagnosis(answer, b.legacy, platform))).toEqual(["in_stock"]);
  });

  it("explains a draft or disabled offer, continue selling off, the total limit, and an offer not yet on the platform", async () => {
    const draft = await newOffer(env, { products: { variant_ids: [a.legacy] } });
    const disabled = await newOffer(env, { products: { variant_ids: [a.legacy] } }, { enable: true });
    await offerCall(env.app, env.key, "POST", disabled, "/disable");
    // On C, which no offer with continue_selling holds (on A another offer's CONTINUE lets it sell).
    const noContinue = await newOffer(env, { products: { variant_ids: [c.legacy] }, inventory: { continue_selling: { enabled: false } } }, { enable: true });
    const limited = await newOffer(env, { products: { variant_ids: [a.legacy] }, limits: { total: { max: 3 } } }, { enable: true });
    // Disabled before it was ever on the platform: it gets no group there (decision 0210), and that is no second reason.
    const neverOn = await newOffer(env, { products: { variant_ids: [a.legacy] } });
    expect((await offerCall(env.app, env.key, "POST", neverOn, "/disable")).status).toBe(202);
    for (const id of [draft, disabled, noContinue, limited, neverOn]) await waitSynced(env, id);
    await seedPreorderOrder(env.app.pool, env.shopId, { lines: [{ quantity: 3, offerId: limited }] });

    await env.stopWorker();
    const unsynced = await newOffer(env, { products: { variant_ids: [a.legacy] } }, { enable: true });
    try {
      const answer = await status(`variant_ids=${a.gid},${c.gid}`);
      expect(codes(diagnosis(answer, a.legacy, draft))).toEqual(["offer_draft"]);
      expect(codes(diagnosis(answer, a.legacy, disabled))).toEqual(["offer_disabled"]);
      expect(codes(diagnosis(answer, a.legacy, neverOn))).toEqual(["offer_disabled"]);
      expect(codes(diagnosis(answer, c.legacy, noContinue))).toEqual(["continue_selling_off"]);
      const limit = diagnosis(answer, a.legacy, limited);
      expect(codes(limit)).toEqual(["total_limit_reached"]);
      expect(limit.reasons[0]?.message).toContain("3");
      expect(codes(diagnosis(answer, a.legacy, unsynced))).toEqual(["selling_plan_not_synced"]);
    } finally {
      await env.startWorker();
    }
    await waitSynced(env, unsynced);
    expect(diagnosis(await status(`variant_ids=${a.legacy}`), a.legacy, unsynced).preorder_button).toBe(true);
  });

  it("checks the offer's markets against market_id, and notes the restriction without one", async () => {
    const [first, second] = markets;
    if (!first || !second) throw new Error("two markets expected");
    const id = await newOffer(env, { products: { variant_ids: [a.legacy] }, markets: { enabled: true, applies_to_all_markets: false, market_ids: [first] } }, { enable: true });
    await waitSynced(env, id);
    expect(diagnosis(await status(`variant_ids=${a.legacy}&market_id=${encodeURIComponent(first)}`), a.legacy, id)).toMatchObject({ preorder_button: true, reasons: [] });
    expect(codes(diagnosis(await status(`variant_ids=${a.legacy}&market_id=${encodeURIComponent(second)}`), a.legacy, id))).toEqual(["market_excluded"]);
    const unspecified = diagnosis(await status(`variant_ids=${a.legacy}`), a.legacy, id);
    expect(unspecified.preorder_button).toBe(true);
    expect(unspecified.notes.map((n) => n.code)).toContain("markets_restricted");
  });

  it("says why a variant is outside an offer: the exclusion tag of an all offer, or a custom offer named by offer_id", async () => {
    await env.app.pool.query("update products set tags = tags || '{no-preorder}'::text[] where shop_id = $1 and id = $2", [env.shopId, a.productId]);
    const all = await newOffer(env, {}, { enable: true });
    const handle = (await offerCall(env.app, env.key, "POST", all, "/products/set_source_to_all", { confirm: true, exclusion_tag: "no-preorder" })).body as { job_id: string };
    await waitJob(env, handle.job_id);
    const custom = await newOffer(env, { products: { variant_ids: [b.legacy] } }, { enable: true });
    await waitSynced(env, all);
    await waitSynced(env, custom);

    const answer = await status(`variant_ids=${a.legacy}&offer_id=${custom}`);
    const excluded = diagnosis(answer, a.legacy, all);
    expect(codes(excluded)).toEqual(["variant_not_in_offer"]);
    expect(excluded.reasons[0]?.message).toContain("exclusion_tag no-preorder");
    expect(codes(diagnosis(answer, a.legacy, custom))).toEqual(["variant_not_in_offer"]);
    // Without offer_id, a custom offer that does not contain the variant is not listed.
    expect((await status(`variant_ids=${a.legacy}`)).variants[0]?.offers.some((o) => o.offer_id === custom)).toBe(false);
  });

  it("takes ids comma-separated or repeated, numeric or global, at most 250", async () => {
    const repeated = await status(`variant_ids=${a.legacy}&variant_ids=${encodeURIComponent(b.gid)}`);
    expect(repeated.variants.map((v) => v.variant_id)).toEqual([a.legacy, b.legacy]);
    const tooMany = Array.from({ length: 251 }, (_, i) => i + 1).join(",");
    expect(await invoke(env.app, "GET", `/preorders/products/inventory_status?variant_ids=${tooMany}`, { key: env.key })).toMatchObject({
      status: 422,
      body: { errors: ["variant_ids must contain at most 250 items"] },
    });
    expect((await invoke(env.app, "GET", "/preorders/products/inventory_status", { key: env.key })).body).toEqual({ errors: ["variant_ids is required"] });
    expect((await invoke(env.app, "GET", "/preorders/products/inventory_status?variant_ids=abc", { key: env.key })).body).toEqual({
      errors: ["variant_ids.0 must be a numeric id or a gid://shopify/ProductVariant/<id>"],
    });
    const unknown = await status("variant_ids=999999999");
    expect(unknown.variants[0]).toMatchObject({ variant_id: 999999999, found: false, available: null, locations: [] });
  });

  it("answers from the catalog mirror, with a warning, when the platform cannot be reached", async () => {
    env.emulator.setFaults({ errorRate: 1 });
    try {
      const answer = await status(`variant_ids=${b.legacy}`);
      expect(answer.inventory_source).toBe("mirror");
      expect(answer.warnings).toHaveLength(1);
      expect(answer.warnings[0]).toContain("catalog mirror");
      expect(answer.variants[0]?.found).toBe(true);
    } finally {
      env.emulator.setFaults({});
    }
  }, 60_000);
});

describe("GET /preorders/offers/{id}/variants", () => {
  it("lists the offer's variants by numeric id, paged, with product title and inventory from the mirror", async () => {
    const mirror = await mirrorVariants(env);
    const chosen = mirror.slice(0, 7);
    const id = await newOffer(env, { products: { variant_ids: chosen.map((v) => v.legacy_id) } });
    const page = async (query: string) => {
      const answer = await offerCall(env.app, env.key, "GET", id, `/variants${query}`);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body as { variants: Json[]; page: number; per_page: number; total: number };
    };
    const pages = [await page("?per_page=3"), await page("?per_page=3&page=2"), await page("?per_page=3&page=3")];
    expect(pages.map((p) => [p.page, p.per_page, p.total, p.variants.length])).toEqual([
      [1, 3, 7, 3],
      [2, 3, 7, 3],
      [3, 3, 7, 1],
    ]);
    expect(pages.flatMap((p) => p.variants.map((v) => v.id))).toEqual(chosen.map((v) => v.legacy_id));
    expect((await page("?page=4&per_page=3")).variants).toEqual([]);

    const { rows } = await env.app.pool.query<{ title: string; sku: string | null; product_title: string; available: number }>(
      `select v.title, v.sku, p.title as product_title,
              (select coalesce(sum(l.available), 0)::int from inventory_levels l join locations loc on loc.shop_id = l.shop_id and loc.id = l.location_id
               where l.shop_id = v.shop_id and l.inventory_item_id = v.inventory_item_id and loc.active) as available
       from variants v join products p on p.shop_id = v.shop_id and p.id = v.product_id where v.shop_id = $1 and v.id = $2`,
      [env.shopId, chosen[0]?.id],
    );
    expect(pages[0]?.variants[0]).toMatchObject({
      id: chosen[0]?.legacy_id,
      gid: chosen[0]?.id,
      title: rows[0]?.title,
      sku: rows[0]?.sku,
      product_title: rows[0]?.product_title,
      inventory_available: rows[0]?.available,
      in_catalog: true,
    });

    // A variant the mirror no longer has stays listed, marked as gone from the catalog.
    await env.app.pool.query("delete from variants where shop_id = $1 and id = $2", [env.shopId, chosen[6]?.id]);
    expect((await page("?per_page=3&page=3")).variants[0]).toMatchObject({ id: chosen[6]?.legacy_id, title: null, in_catalog: false, inventory_available: null });

    expect((await offerCall(env.app, env.key, "GET", id, "/variants?per_page=251")).body).toEqual({ errors: ["per_page must be at most 250"] });
    expect((await offerCall(env.app, env.key, "GET", id, "/variants?page=0")).body).toEqual({ errors: ["page must be at least 1"] });
    expect((await offerCall(env.app, env.key, "GET", "00000000-0000-4000-8000-000000000000", "/variants")).status).toBe(404);
    const offer = (await offerCall(env.app, env.key, "GET", id)).body as { variants: { count: number; url: string } };
    expect(offer.variants).toEqual({ count: 7, url: `/api/v2/external/preorders/offers/${id}/variants` });
  });
});
