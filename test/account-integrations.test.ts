import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROVIDER_SEED, type ProviderEmulator, startProviderEmulator } from "../src/providers/emulator/index.ts";
import { connectEmailProvider1 } from "../src/providers/oauth.ts";
import { startDemoProviders } from "../src/runtime/providers.ts";
import { createShopWithKey, invoke, startTestApp } from "./helpers/app.ts";
import { runCli } from "./helpers/cli.ts";
import { type TestEnv, startTestEnv } from "./helpers/fixture.ts";

let emulator: ProviderEmulator;
let env: TestEnv;

beforeAll(async () => {
  emulator = await startProviderEmulator();
  env = await startTestEnv({ config: { PROVIDER_EMULATOR_PORT: String(emulator.port), PROVIDER_TIMEOUT_MS: "2000" } });
});
afterAll(async () => {
  await env.close();
  await emulator.close();
});

const EP2_KEY = PROVIDER_SEED.email_provider_2.key;
const EP3_KEY = PROVIDER_SEED.email_provider_3.key;
const EP3_OTHER = PROVIDER_SEED.email_provider_3.otherKey;
const FLOW_TRIGGERS = "back_in_stock_signup_created, back_in_stock_alert_sent, back_in_stock_reminder_sent, back_in_stock_signup_converted, preorder_order_placed, preorder_balance_due";

const get = async (key = env.key) => invoke(env.app, "GET", "/account/integrations", { key });
const patch = async (body: unknown, key = env.key) => invoke(env.app, "PATCH", "/account/integrations", { key, body });

/** Everything stored about integrations, as text: no key may appear in it. */
async function storedText(): Promise<string> {
  const { rows } = await env.pool.query<{ t: string }>(
    `select coalesce((select string_agg(c::text || encode(coalesce(c.credential, ''), 'escape'), ' ') from integration_connections c), '')
       || coalesce((select string_agg(a::text, ' ') from account_integrations a), '') as t`,
  );
  return rows[0]?.t ?? "";
}

describe("GET /account/integrations", () => {
  it("shows flags and switches only, all off for a new shop", async () => {
    const answer = await get();
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      email_provider_1: { connected: false, verified: false, sync_enabled: false, list_id: null },
      email_provider_2: { connected: false, verified: false, sync_enabled: false, list_id: null },
      email_provider_3: { connected: false, verified: false, sync_enabled: false, list_id: null, list_name: null },
      sms_provider: { connected: false },
      commerce_platform: { connected: false, sync_enabled: false },
      sync_customers_tag: "back-in-stock",
      signup_sync_targets: [],
      ad_pixel: { enabled: false },
      flow_triggers: { enabled: false, triggers: [] },
      split_order_app: { enabled: false },
    });
  });

  it("shows sms_provider connected when the text-message provider is configured", async () => {
    const app = await startTestApp(env.db.url, { TWILIO_ACCOUNT_SID: "AC0123456789abcdef0123456789abcdef", TWILIO_AUTH_TOKEN: "twilio-secret", TWILIO_FROM: "+15550100000" }, { platform: env.platform });
    try {
      const answer = await invoke(app, "GET", "/account/integrations", { key: env.key });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ sms_provider: { connected: true } });
      expect(JSON.stringify(answer.body)).not.toContain("twilio-secret");
    } finally {
      await app.close();
    }
  });

  it("needs a valid key", async () => {
    expect(await invoke(env.app, "GET", "/account/integrations")).toMatchObject({ status: 401, body: { errors: ["X-Auth-Token is missing or invalid"] } });
  });
});

describe("PATCH /account/integrations: email_provider_3", () => {
  it("checks the key by fetching the audiences and saves it encrypted with the chosen list", async () => {
    const answer = await patch({ email_provider_3: { api_key: EP3_KEY, list_id: "f6a7b8c9d0", sync_enabled: true } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    expect(answer.body).toMatchObject({
      email_provider_3: { connected: true, verified: true, sync_enabled: true, list_id: "f6a7b8c9d0", list_name: "Back in stock" },
      signup_sync_targets: ["email_provider_3"],
    });
    expect(JSON.stringify(answer.body)).not.toContain(EP3_KEY);
    expect(JSON.stringify((await get()).body)).not.toContain(EP3_KEY);
    expect(await storedText()).not.toContain(EP3_KEY);
    // Encrypted with the service's secrets key: it opens back to the key.
    const { rows } = await env.pool.query<{ credential: Buffer }>("select credential from integration_connections where shop_id = $1 and provider = 'email_provider_3'", [env.shopId]);
    expect(env.platform.secrets.open(rows[0]!.credential)).toBe(EP3_KEY);
  });

  it("does not save a key the provider refuses (422 on that field)", async () => {
    const answer = await patch({ email_provider_3: { api_key: "ep3-wrong-key", list_id: "a1b2c3d4e5" } });
    expect(answer).toMatchObject({ status: 422, body: { errors: ["email_provider_3.api_key was refused by email_provider_3"] } });
    expect((await get()).body).toMatchObject({ email_provider_3: { connected: true, verified: true, list_id: "f6a7b8c9d0" } });
    const { rows } = await env.pool.query<{ credential: Buffer }>("select credential from integration_connections where shop_id = $1 and provider = 'email_provider_3'", [env.shopId]);
    expect(env.platform.secrets.open(rows[0]!.credential)).toBe(EP3_KEY);
  });

  it("refuses a list_id that is not one of the account's audiences", async () => {
    expect(await patch({ email_provider_3: { list_id: "nope" } })).toMatchObject({ status: 422, body: { errors: ["email_provider_3.list_id must be one of: a1b2c3d4e5, f6a7b8c9d0"] } });
    // Another account's key: its audiences are other ones, and the saved list is not among them.
    expect(await patch({ email_provider_3: { api_key: EP3_OTHER } })).toMatchObject({ status: 422, body: { errors: ["email_provider_3.list_id must be one of: 0011223344"] } });
    const moved = await patch({ email_provider_3: { list_id: "a1b2c3d4e5" } });
    expect(moved).toMatchObject({ status: 202, body: { email_provider_3: { list_id: "a1b2c3d4e5", list_name: "Store customers" } } });
  });

  it("answers a clear 422 and saves nothing while the provider is unreachable", async () => {
    emulator.setFaults({ outage: true }, "email_provider_3");
    try {
      const answer = await patch({ email_provider_3: { api_key: EP3_OTHER, list_id: "0011223344" }, ad_pixel: { enabled: true } });
      expect(answer.status).toBe(422);
      expect(answer.body).toEqual({
        errors: ["email_provider_3.api_key could not be checked: email_provider_3: server error 503: Service unavailable (injected 503); nothing was saved, try again"],
      });
      expect((await get()).body).toMatchObject({ email_provider_3: { list_id: "a1b2c3d4e5" }, ad_pixel: { enabled: false } });
    } finally {
      emulator.setFaults({});
    }
  });

  it("needs a key for a list or for sync", async () => {
    const other = await createShopWithKey(env.pool, "No key shop");
    expect(await patch({ email_provider_3: { list_id: "a1b2c3d4e5" } }, other.apiKey)).toMatchObject({ status: 422, body: { errors: ["email_provider_3.list_id needs email_provider_3.api_key: no key is saved"] } });
    expect(await patch({ email_provider_3: { sync_enabled: true } }, other.apiKey)).toMatchObject({ status: 422, body: { errors: ["email_provider_3.sync_enabled needs email_provider_3.api_key"] } });
    // Another shop sees none of this shop's connections.
    expect((await get(other.apiKey)).body).toMatchObject({ email_provider_3: { connected: false, list_id: null } });
  });

  it("an empty api_key removes the saved key and turns its sync off", async () => {
    const answer = await patch({ email_provider_3: { api_key: "" } });
    expect(answer).toMatchObject({ status: 202, body: { email_provider_3: { connected: false, verified: false, sync_enabled: false, list_id: null }, signup_sync_targets: [] } });
    const { rows } = await env.pool.query<{ credential: Buffer | null }>("select credential from integration_connections where shop_id = $1 and provider = 'email_provider_3'", [env.shopId]);
    expect(rows[0]?.credential).toBeNull();
  });
});

describe("PATCH /account/integrations: email_provider_1 and email_provider_2", () => {
  it("email_provider_1: 409 until connected by OAuth, then turns its sync on and off", async () => {
    expect(await patch({ email_provider_1: { sync_enabled: true } })).toMatchObject({
      status: 409,
      body: { errors: ["email_provider_1 is not connected; connect it by OAuth from the app's Integrations page first"] },
    });
    await connectEmailProvider1({ db: env.pool, config: env.config, secrets: env.platform.secrets }, env.shopId, { code: "code-from-consent" }, "aud_1002");
    expect((await get()).body).toMatchObject({ email_provider_1: { connected: true, verified: true, sync_enabled: false, list_id: "aud_1002" } });
    expect(await patch({ email_provider_1: { sync_enabled: true } })).toMatchObject({ status: 202, body: { email_provider_1: { sync_enabled: true }, signup_sync_targets: ["email_provider_1"] } });
    expect(await patch({ email_provider_1: { api_key: "x" } })).toMatchObject({ status: 422, body: { errors: ["email_provider_1.api_key is not allowed"] } });
    expect(await patch({ email_provider_1: { sync_enabled: false } })).toMatchObject({ status: 202, body: { email_provider_1: { sync_enabled: false } } });
  });

  it("email_provider_2: saves the key encrypted and unverified until its first use; sync needs key and list", async () => {
    expect(await patch({ email_provider_2: { sync_enabled: true } })).toMatchObject({ status: 422, body: { errors: ["email_provider_2.sync_enabled needs email_provider_2.api_key"] } });
    expect(await patch({ email_provider_2: { api_key: EP2_KEY, sync_enabled: true } })).toMatchObject({ status: 422, body: { errors: ["email_provider_2.list_id is required when sync_enabled is true"] } });
    const answer = await patch({ email_provider_2: { api_key: EP2_KEY, list_id: "LsT002", sync_enabled: true } });
    expect(answer).toMatchObject({ status: 202, body: { email_provider_2: { connected: true, verified: false, sync_enabled: true, list_id: "LsT002" } } });
    expect(JSON.stringify(answer.body)).not.toContain(EP2_KEY);
    expect(await storedText()).not.toContain(EP2_KEY);
    expect(await patch({ email_provider_2: { api_key: "" } })).toMatchObject({ status: 202, body: { email_provider_2: { connected: false, sync_enabled: false, list_id: "LsT002" } } });
  });
});

describe("PATCH /account/integrations: platform customers and switches", () => {
  it("commerce_platform and sync_customers_tag are the back-in-stock tagging settings", async () => {
    const answer = await patch({ commerce_platform: { sync_enabled: true }, sync_customers_tag: "  restock-waitlist " });
    expect(answer).toMatchObject({ status: 202, body: { commerce_platform: { sync_enabled: true }, sync_customers_tag: "restock-waitlist", signup_sync_targets: ["commerce_platform"] } });
    expect((await invoke(env.app, "GET", "/back_in_stock/settings", { key: env.key })).body).toMatchObject({ tagging: { enabled: true, customer_tag: "restock-waitlist" } });
    expect(await patch({ sync_customers_tag: " " })).toMatchObject({ status: 422 });
    expect(await patch({ commerce_platform: { sync_enabled: false } })).toMatchObject({ status: 202, body: { commerce_platform: { sync_enabled: false }, signup_sync_targets: [] } });
  });

  it("ad_pixel, split_order_app and flow_triggers (triggers replace the stored list)", async () => {
    const first = await patch({ ad_pixel: { enabled: true }, split_order_app: { enabled: true }, flow_triggers: { enabled: true, triggers: ["back_in_stock_signup_created", "preorder_order_placed", "preorder_order_placed"] } });
    expect(first).toMatchObject({
      status: 202,
      body: { ad_pixel: { enabled: true }, split_order_app: { enabled: true }, flow_triggers: { enabled: true, triggers: ["back_in_stock_signup_created", "preorder_order_placed"] } },
    });
    const second = await patch({ flow_triggers: { triggers: ["back_in_stock_alert_sent"] } });
    expect(second.body).toMatchObject({ flow_triggers: { enabled: true, triggers: ["back_in_stock_alert_sent"] }, ad_pixel: { enabled: true } });
    expect((await get()).body).toMatchObject({ flow_triggers: { enabled: true, triggers: ["back_in_stock_alert_sent"] } });
  });

  it("validates every field: one message per field", async () => {
    const answer = await patch({ flow_triggers: { triggers: ["nope"] }, ad_pixel: { enabled: "yes" }, webhooks: true, email_provider_3: { list_id: 5 } });
    expect(answer.status).toBe(422);
    expect((answer.body as { errors: string[] }).errors.sort()).toEqual(
      [`flow_triggers.triggers.0 must be one of: ${FLOW_TRIGGERS}`, "ad_pixel.enabled must be a boolean", "webhooks is not allowed", "email_provider_3.list_id must be a string"].sort(),
    );
  });
});

describe("npm run cli -- integrations", () => {
  /** The CLI against this file's database, secrets key and provider emulator. */
  const cli = (...args: string[]) => runCli(env.db.url, args, { SECRETS_KEY: env.config.SECRETS_KEY, PROVIDER_EMULATOR_PORT: String(emulator.port) });

  it("connects email_provider_1 with an OAuth code, refuses a bad code, and disconnects", async () => {
    const shop = await createShopWithKey(env.pool, "CLI shop");
    const connected = await cli("integrations", "connect-email-provider-1", "--shop", shop.shopId, "--code", "code-from-consent", "--list", "aud_1002");
    expect(connected.code, connected.stderr).toBe(0);
    expect(JSON.parse(connected.stdout)).toEqual({ shop_id: shop.shopId, provider: "email_provider_1", connected: true, list_id: "aud_1002", list_name: "Back in stock" });
    expect((await get(shop.apiKey)).body).toMatchObject({ email_provider_1: { connected: true, verified: true, sync_enabled: false, list_id: "aud_1002" } });
    expect(await patch({ email_provider_1: { sync_enabled: true } }, shop.apiKey)).toMatchObject({ status: 202, body: { email_provider_1: { sync_enabled: true } } });

    const refused = await cli("integrations", "connect-email-provider-1", "--shop", shop.shopId, "--code", "invalid");
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining("email_provider_1: the authorization code was refused") as unknown });

    const gone = await cli("integrations", "disconnect-email-provider-1", "--shop", shop.shopId);
    expect(gone.code, gone.stderr).toBe(0);
    expect((await get(shop.apiKey)).body).toMatchObject({ email_provider_1: { connected: false, verified: false, sync_enabled: false } });
    expect((await cli("integrations", "connect-email-provider-1", "--shop", shop.shopId)).code).toBe(2);
  });
});

describe("npm start: the provider emulator and the demo shop", () => {
  async function freePort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    await new Promise((resolve) => server.close(resolve));
    if (address === null || typeof address === "string") throw new Error("no port");
    return address.port;
  }

  it("starts the emulator on PROVIDER_EMULATOR_PORT when no provider URL is set and connects the demo shop's email_provider_1", async () => {
    const demo = await createShopWithKey(env.pool, "Demo Store");
    await env.pool.query("update shops set is_demo = true where id = $1", [demo.shopId]);
    const port = await freePort();
    const config = { ...env.config, PROVIDER_EMULATOR_PORT: port };
    const close = await startDemoProviders(env.pool, env.platform, config, env.log);
    try {
      expect(close).toBeTypeOf("function");
      expect(await (await fetch(`http://127.0.0.1:${port}/admin/stats`)).json()).toMatchObject({ email_provider_1: { requests: 1 } });
      expect((await get(demo.apiKey)).body).toMatchObject({ email_provider_1: { connected: true, verified: true, sync_enabled: false, list_id: "aud_1001" } });
    } finally {
      await close?.();
    }
    // With a provider URL configured, nothing is started.
    expect(await startDemoProviders(env.pool, env.platform, { ...config, EMAIL_PROVIDER_3_URL: "https://provider-3.example.com" }, env.log)).toBeUndefined();
  });
});
