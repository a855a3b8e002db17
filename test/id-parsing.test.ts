import { describe, expect, it } from "vitest";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";

/** One parser per id (src/core/params.ts): the same id is accepted, refused and worded alike in every area. */
const env = useTestEnv({ shop: "Ids shop" });

const VARIANT = "must be a numeric id or a gid://shopify/ProductVariant/<id>";

/** The refusal of one variant id in each area that takes one, as the client sees it. */
async function refusals(id: string): Promise<unknown[]> {
  const q = encodeURIComponent(id);
  const answers = await Promise.all([
    invoke(env.app, "GET", `/back_in_stock/signups?variant_id=${q}`, { key: env.key }),
    invoke(env.app, "GET", `/back_in_stock/notifications?variant_id=${q}`, { key: env.key }),
    invoke(env.app, "GET", `/preorders/orders?variant_id=${q}`, { key: env.key }),
    invoke(env.app, "GET", `/preorders/products/inventory_status?variant_ids=${q}`, { key: env.key }),
    invoke(env.app, "POST", "/preorders/product_variants/bulk_recalculate_preorder_counts", { key: env.key, body: { variant_ids: [id] } }),
    invoke(env.app, "POST", "/preorders/reports/by_offer/export", { key: env.key, body: { variant_id: id } }),
  ]);
  return answers.map((a) => [a.status, a.body]);
}

describe("ids are parsed the same way in every area", () => {
  it("a variant id that is neither a number nor a variant gid is refused with one message everywhere", async () => {
    for (const bad of ["abc", "gid://shopify/Product/101", "12x"]) {
      expect(await refusals(bad)).toEqual([
        [422, { errors: [`variant_id ${VARIANT}`] }],
        [422, { errors: [`variant_id ${VARIANT}`] }],
        [422, { errors: [`variant_id ${VARIANT}`] }],
        [422, { errors: [`variant_ids.0 ${VARIANT}`] }],
        [422, { errors: [`variant_ids.0 ${VARIANT}`] }],
        [422, { errors: [`variant_id ${VARIANT}`] }],
      ]);
    }
  });

  it("a number and its gid are both taken everywhere", async () => {
    for (const good of ["101", "gid://shopify/ProductVariant/101"]) {
      const statuses = (await refusals(good)).map((answer) => (answer as [number])[0]);
      expect(statuses).toEqual([200, 200, 200, 200, 202, 202]);
    }
  });

  it("a malformed id in a path is an unknown id (404), never a 422 or a 500", async () => {
    const paths = ["/preorders/offers/x", "/preorders/orders/x", "/back_in_stock/signups/x", "/jobs/x", "/exports/x"];
    const answers = await Promise.all(paths.map((path) => invoke(env.app, "GET", path, { key: env.key })));
    expect(answers.map((a) => a.status)).toEqual([404, 404, 404, 404, 404]);
  });
});
