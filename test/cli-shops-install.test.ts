import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SecretBox } from "../src/core/secrets.ts";
import { createShop } from "../src/db/api-keys.ts";
import { verifyInstallBinding } from "../src/platform/oauth/install-binding.ts";
import { type CliResult, runCli } from "./helpers/cli.ts";
import { useTestEnv } from "./helpers/fixture.ts";

/** `npm run cli -- shops install`: the install link, bound to a shop row when --id is given (decision 0220). */
const env = useTestEnv({ app: false, shop: false, poolSize: 2 });
const SECRET = "cli-install-secret-0123456789abcdef";
const cli = (...args: string[]): Promise<CliResult> => runCli(env.db.url, args, { PLATFORM_API_SECRET: SECRET, APP_URL: "https://preorders.example.com" });

describe("cli: shops install", () => {
  it("prints the install URL for the store, with a binding to the shop signed with the app's secret", async () => {
    const shopId = await createShop(env.pool, "Install Shop");
    const result = await cli("shops", "install", "--shop", "Example.myshopify.com", "--id", shopId);
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout) as { install_url: string; shop: string; shop_id: string };
    expect(printed.shop).toBe("example.myshopify.com");
    expect(printed.shop_id).toBe(shopId);
    const url = new URL(printed.install_url);
    expect(`${url.origin}${url.pathname}`).toBe("https://preorders.example.com/auth");
    expect(url.searchParams.get("shop")).toBe("example.myshopify.com");
    expect(verifyInstallBinding(SECRET, url.searchParams.get("bind") ?? "", "example.myshopify.com")).toBe(shopId);
    expect(verifyInstallBinding(SECRET, url.searchParams.get("bind") ?? "", "other.myshopify.com")).toBeUndefined();
    expect(result.stdout).not.toContain(SECRET);
  });

  it("without --id: the plain link (the install connects the store's shop, or creates one)", async () => {
    const result = await cli("shops", "install", "--shop", "plain.myshopify.com");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ install_url: "https://preorders.example.com/auth?shop=plain.myshopify.com", shop: "plain.myshopify.com", shop_id: null });
  });

  it("refuses a domain that is not a store's, an unknown shop, and a store another shop holds", async () => {
    const notStore = await cli("shops", "install", "--shop", "example.com");
    expect(notStore.code).toBe(2);
    expect(notStore.stderr).toContain("--shop must be the store's myshopify.com domain");
    const unknown = await cli("shops", "install", "--shop", "x.myshopify.com", "--id", "00000000-0000-4000-8000-000000000000");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("Shop not found");
    const holder = await createShop(env.pool, "Holder");
    await env.pool.query("update shops set platform_domain = 'held.myshopify.com' where id = $1", [holder]);
    const other = await createShop(env.pool, "Other");
    const held = await cli("shops", "install", "--shop", "held.myshopify.com", "--id", other);
    expect(held.code).toBe(1);
    expect(held.stderr).toContain(`held.myshopify.com is connected to another shop (${holder})`);
  });
});

describe("cli: shops connect (a custom app's token)", () => {
  const secretsKey = randomBytes(32);
  const connect = (args: string[], token?: string) =>
    runCli(env.db.url, ["shops", "connect", ...args], { PLATFORM_API_SECRET: SECRET, SECRETS_KEY: secretsKey.toString("base64"), ...(token ? { PLATFORM_ACCESS_TOKEN: token } : {}) });

  it("seals the token from PLATFORM_ACCESS_TOKEN into the shop row for the store's Admin API, and queues its first sync", async () => {
    const shopId = await createShop(env.pool, "Custom App Shop");
    const result = await connect(["--id", shopId, "--shop", "custom-app.myshopify.com"], "shpat_custom_0123456789abcdef");
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ shop_id: shopId, shop: "custom-app.myshopify.com", connected: true });
    expect(result.stdout + result.stderr).not.toContain("shpat_custom");
    const { rows } = await env.pool.query<{ domain: string; url: string; token: Buffer }>(
      "select platform_domain as domain, platform_graphql_url as url, platform_access_token as token from shops where id = $1",
      [shopId],
    );
    expect(rows[0]?.domain).toBe("custom-app.myshopify.com");
    expect(rows[0]?.url).toBe("https://custom-app.myshopify.com/admin/api/2026-07/graphql.json");
    expect(new SecretBox(secretsKey).open(rows[0]?.token ?? Buffer.alloc(0))).toBe("shpat_custom_0123456789abcdef");
    const jobs = await env.pool.query("select 1 from jobs where shop_id = $1 and kind = 'catalog_sync'", [shopId]);
    expect(jobs.rowCount).toBe(1);
  });

  it("needs the token in the environment, not on the command line", async () => {
    const shopId = await createShop(env.pool, "No Token Shop");
    const result = await connect(["--id", shopId, "--shop", "no-token.myshopify.com"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("set PLATFORM_ACCESS_TOKEN");
  });
});
