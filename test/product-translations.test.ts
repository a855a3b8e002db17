import { beforeAll, describe, expect, it } from "vitest";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { insertOffer, orderPayload, placeOrder, settledNotifications } from "./helpers/preorder-shop.ts";
import { waitFor } from "./helpers/wait.ts";

/**
 * /account/languages product_translations_enabled (with multi_language_enabled): back-in-stock
 * alerts and preorder notifications name the product by the platform's translated title in the
 * message's locale (translatableResource, read_translations), cached, falling back to the title.
 */
const env = useTestEnv({
  shop: "Translations Shop",
  smtp: true,
  dataDir: true,
  emulator: { seed: { products: 4, variantsPerProduct: 1 } },
  connect: "synced",
  worker: { pollInterval: 50 },
});

const store = () => env.emulator.store;

/** A subject as the sink read it: RFC 2047 encoded words (=?UTF-8?Q?...?=) decoded. */
function subject(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return value.replace(/=\?UTF-8\?Q\?(.*?)\?=\s*/gi, (_m, word: string) =>
    Buffer.from(word.replace(/_/g, " ").replace(/=([0-9A-F]{2})/gi, (_h, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))), "latin1").toString("utf8"),
  );
}
const productGid = (i: number) => `gid://shopify/Product/${store().products[i]?.id ?? 0}`;
const titleOf = (i: number) => store().products[i]?.title ?? "";

beforeAll(async () => {
  expect((await invoke(env.app, "PATCH", "/account/languages", { key: env.key, body: { multi_language_enabled: true } })).status).toBe(202);
  env.emulator.app.translate(productGid(0), "fr", { title: "Écharpe en laine" });
  env.emulator.app.translate(productGid(2), "fr", { title: "Manteau d'hiver" });
});

async function alertSubject(productIndex: number, contact: string, locale = "fr"): Promise<string | undefined> {
  const variant = store().variantsOf(store().products[productIndex] ?? store().products[0]!)[0];
  const { rows } = await env.app.pool.query<{ id: string }>(
    "insert into bis_signups (shop_id, variant_id, product_id, channel, contact, consent, locale) values ($1, $2, $3, 'email', $4, true, $5) returning id",
    [env.shopId, `gid://shopify/ProductVariant/${variant?.id ?? 0}`, productGid(productIndex), contact, locale],
  );
  expect((await invoke(env.app, "POST", `/back_in_stock/signups/${rows[0]?.id ?? ""}/notify`, { key: env.key })).status).toBe(202);
  return waitFor(`the alert to ${contact}`, async () => subject(env.sink.to(contact)[0]?.subject));
}

async function turnOn(): Promise<void> {
  env.emulator.app.grant(["read_translations"]);
  expect((await invoke(env.app, "PATCH", "/account/languages", { key: env.key, body: { product_translations_enabled: true } })).status).toBe(202);
}

describe("product_translations_enabled and the product's title in messages", () => {
  it("off: a French alert names the product by its title; on: by the platform's French title; without a translation, the title; in the default locale, the title", async () => {
    expect(await alertSubject(0, "before@example.com")).toBe(`${titleOf(0)} est de nouveau en stock`);
    await turnOn();
    expect(await alertSubject(0, "after@example.com")).toBe("Écharpe en laine est de nouveau en stock");
    expect(await alertSubject(1, "untranslated@example.com")).toBe(`${titleOf(1)} est de nouveau en stock`);
    expect(await alertSubject(0, "english@example.com", "en")).toBe(`${titleOf(0)} is back in stock`);
  });

  it("caches a title it read; a read the platform refuses (access revoked) falls back to the title and is not cached", async () => {
    await turnOn();
    const { rows } = await env.app.pool.query<{ title: string | null }>(
      "select title from product_title_translations where shop_id = $1 and product_id = $2 and locale = 'fr'",
      [env.shopId, productGid(0)],
    );
    expect(rows).toEqual([{ title: "Écharpe en laine" }]);
    env.emulator.app.revoke(["read_translations"]);
    try {
      // Product 0 comes from the cache; product 3 was never read and the platform now refuses.
      expect(await alertSubject(0, "cached@example.com")).toBe("Écharpe en laine est de nouveau en stock");
      env.emulator.app.translate(productGid(3), "fr", { title: "Bonnet" });
      expect(await alertSubject(3, "refused@example.com")).toBe(`${titleOf(3)} est de nouveau en stock`);
      const none = await env.app.pool.query("select 1 from product_title_translations where shop_id = $1 and product_id = $2", [env.shopId, productGid(3)]);
      expect(none.rowCount).toBe(0);
    } finally {
      env.emulator.app.grant(["read_translations"]);
    }
  });

  it("a preorder notification's product.title is the platform's French title for a French customer", async () => {
    await turnOn();
    const template = await invoke(env.app, "PATCH", "/preorders/templates/confirmation/fr", { key: env.key, body: { email: { subject: "{{ product.title }} : précommande {{ order.name }}" } } });
    expect(template.status).toBe(202);
    const offer = await insertOffer(env.app.pool, env.shopId, {}, "Hiver");
    const payload = orderPayload({ plan: offer.plan, email: "claire@example.com", locale: "fr" });
    const product = store().products[2];
    const variant = product ? store().variantsOf(product)[0] : undefined;
    payload.line_items = [{ id: payload.id * 10, variant_id: variant?.id, product_id: product?.id, quantity: 1, price: "100.00", selling_plan_allocation: { selling_plan_id: offer.plan } }];
    const orderId = await placeOrder(env, env.emulator.shopDomain, "orders/create", payload);
    const [sent] = await settledNotifications(env, orderId, "confirmation");
    expect(sent).toMatchObject({ status: "sent", locale: "fr" });
    expect(subject(env.sink.to("claire@example.com")[0]?.subject)).toBe(`Manteau d'hiver : précommande #${payload.id}`);
  });
});
