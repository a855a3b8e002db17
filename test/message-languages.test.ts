import { beforeAll, describe, expect, it } from "vitest";
import { invoke } from "./helpers/app.ts";
import { seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { waitFor } from "./helpers/wait.ts";

/**
 * /account/languages multi_language_enabled decides the language of the messages: off (a shop
 * that sells in one language), every alert is in the shop's default locale; on, in the locale the
 * customer signed up with. (The preorder side: test/preorder-notifications.test.ts.)
 */
const env = useTestEnv({ shop: "Languages Shop", smtp: true, dataDir: true, worker: { pollInterval: 50 } });

beforeAll(async () => {
  await seedVariants(env.app.pool, env.shopId, [{ n: 801, product: 80, productTitle: "Wool Scarf", available: 0 }]);
});

async function alertSubject(contact: string): Promise<string | undefined> {
  const { rows } = await env.app.pool.query<{ id: string }>(
    "insert into bis_signups (shop_id, variant_id, channel, contact, consent, locale) values ($1, $2, 'email', $3, true, 'fr') returning id",
    [env.shopId, variantGid(801), contact],
  );
  expect((await invoke(env.app, "POST", `/back_in_stock/signups/${rows[0]?.id ?? ""}/notify`, { key: env.key })).status).toBe(202);
  return waitFor(`the alert to ${contact}`, async () => env.sink.to(contact)[0]?.subject);
}

describe("multi_language_enabled and the language of back-in-stock alerts", () => {
  it("off: a French signup's alert is in the shop's default locale (en); on: in French", async () => {
    expect(await alertSubject("one-language@example.com")).toBe("Wool Scarf is back in stock");
    const on = await invoke(env.app, "PATCH", "/account/languages", { key: env.key, body: { multi_language_enabled: true } });
    expect(on).toMatchObject({ status: 202, body: { multi_language_enabled: true } });
    expect(await alertSubject("several-languages@example.com")).toBe("Wool Scarf est de nouveau en stock");
  });
});
