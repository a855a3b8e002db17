import { describe, expect, it } from "vitest";
import { renderAppEmbed } from "../src/platform/emulator/storefront/theme.ts";
import type { EmbedData, ProductData } from "../src/storefront/widget/types.ts";

/**
 * The app embed block (extensions/preorder-widget/blocks/app-embed.liquid) rendered alone with
 * Liquid objects shaped as Shopify's: it writes the product data the widget reads from `product`,
 * its variants and each variant's `$app:preorder` `offer-<id>` metafields, finding the offers by
 * the shop metafield's `live_offer_ids` (decision 0232); on a collection page, the same for each
 * of the collection's products.
 */
const LIVE_A = "0b6a6c3e-1111-4c1f-9d1e-000000000001";
const LIVE_B = "0b6a6c3e-2222-4c1f-9d1e-000000000002";
const LIVE_ELSEWHERE = "0b6a6c3e-3333-4c1f-9d1e-000000000003";
const DISABLED = "0b6a6c3e-4444-4c1f-9d1e-000000000004";

const json = (value: unknown) => ({ value, type: "json" });
const offer = (id: string, extra: Record<string, unknown> = {}) => ({ version: 1, offer_id: id, name: `Offer ${id}`, ...extra });

function scope(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    shop: { name: "Demo", currency: "EUR", metafields: { "$app:preorder": { shop: json({ version: 1, live_offer_ids: [LIVE_A, LIVE_B, LIVE_ELSEWHERE] }) } } },
    cart: { currency: { iso_code: "CHF" } },
    request: { locale: { iso_code: "fr" } },
    localization: { market: { id: "gid://shopify/Market/2" } },
    template: { name: "product" },
    ...extra,
  };
}

const product = {
  id: 101,
  title: "Jacket",
  handle: "jacket",
  variants: [
    {
      id: 1001,
      title: "Small",
      price: 12_500,
      available: true,
      inventory_quantity: 0,
      inventory_policy: "continue",
      metafields: {
        "$app:preorder": {
          [`offer-${LIVE_B}`]: json(offer(LIVE_B, { custom_css: "</script><b>" })),
          [`offer-${LIVE_A}`]: json(offer(LIVE_A)),
          // Not among the live ids (its metafield not yet removed): not rendered.
          [`offer-${DISABLED}`]: json(offer(DISABLED)),
        },
      },
    },
    { id: 1002, title: "Large", price: 13_000, available: false, inventory_quantity: 0, inventory_policy: "deny", metafields: {} },
  ],
};

function scripts(html: string): { embed: EmbedData; product: ProductData | null } {
  const embed = JSON.parse(/<script type="application\/json" id="preorder-app-embed">(.*?)<\/script>/s.exec(html)?.[1] ?? "null") as EmbedData;
  const found = /<script type="application\/json" data-preorder-product>(.*?)<\/script>/s.exec(html)?.[1];
  return { embed, product: found === undefined ? null : (JSON.parse(found) as ProductData) };
}

describe("the app embed block", () => {
  it("renders the product's data: each variant with its stock and its live offers' metafields by key, none for a variant without", async () => {
    const html = await renderAppEmbed(scope({ product }));
    // A value holding </script> cannot end the tag.
    expect(html).not.toContain("</script><b>");
    const { embed, product: data } = scripts(html);
    // The page's prices are in the cart's (the market's) currency; a fixed discount is in the shop's.
    expect(embed).toEqual({
      shop: { version: 1, live_offer_ids: [LIVE_A, LIVE_B, LIVE_ELSEWHERE] },
      locale: "fr",
      market_id: "gid://shopify/Market/2",
      currency: "CHF",
      shop_currency: "EUR",
      proxy_path: "/apps/preorder",
      template: "product",
    });
    expect(data).toEqual({
      id: 101,
      handle: "jacket",
      variants: [
        {
          id: 1001,
          title: "Small",
          price: 12_500,
          available: true,
          inventory_quantity: 0,
          inventory_policy: "continue",
          offers: { [`offer-${LIVE_A}`]: offer(LIVE_A), [`offer-${LIVE_B}`]: offer(LIVE_B, { custom_css: "</script><b>" }) },
        },
        { id: 1002, title: "Large", price: 13_000, available: false, inventory_quantity: 0, inventory_policy: "deny", offers: {} },
      ],
    });
  });

  it("renders no offers before the service has written the shop metafield, and no product data on a page without a product", async () => {
    const unwritten = await renderAppEmbed(scope({ product, shop: { name: "Demo", metafields: {} } }));
    const { embed, product: data } = scripts(unwritten);
    expect(embed.shop).toBeNull();
    expect(data?.variants.map((v) => v.offers)).toEqual([{}, {}]);
    const cart = scripts(await renderAppEmbed(scope({ template: { name: "cart" }, localization: { market: null } })));
    expect(cart.product).toBeNull();
    expect(cart.embed).toMatchObject({ template: "cart", market_id: null });
  });

  it("on a collection page, lists each of the collection's products with its variants' live offers", async () => {
    const other = { id: 102, title: "Boots", handle: "boots", variants: [{ ...product.variants[1], id: 2001, metafields: { "$app:preorder": { [`offer-${LIVE_ELSEWHERE}`]: json(offer(LIVE_ELSEWHERE)) } } }] };
    const html = await renderAppEmbed(scope({ template: { name: "collection" }, collection: { title: "Winter", products: [product, other] } }));
    expect(scripts(html).product).toBeNull();
    const listed = JSON.parse(/<script type="application\/json" data-preorder-collection>(.*?)<\/script>/s.exec(html)?.[1] ?? "null") as ProductData[];
    expect(listed.map((p) => [p.handle, p.variants.map((v) => Object.keys(v.offers).sort())])).toEqual([
      ["jacket", [[`offer-${LIVE_A}`, `offer-${LIVE_B}`], []]],
      ["boots", [[`offer-${LIVE_ELSEWHERE}`]]],
    ]);
  });
});
