import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlockedTargetError, blockedAddressReason, postToWebhookTarget } from "../src/preorders/settings/webhook-target.ts";
import { api } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { insertOffer, orderPayload, placeOrder, useDomain } from "./helpers/preorder-shop.ts";
import { waitFor } from "./helpers/wait.ts";

// The service's default: DEVELOPER_WEBHOOK_ALLOW_PRIVATE_TARGETS unset (false). The deliveries
// allowed with the switch on are in preorder-settings.test.ts (its env sets it).
const env = useTestEnv({ shop: "Webhook Target Shop", worker: true });
const DOMAIN = "webhook-target-shop.platform.local";
const SECRET = "whsec-0123456789abcdef";

/** A server on 127.0.0.1 that counts what reaches it. */
let server: Server;
let port: number;
let requests = 0;

beforeAll(async () => {
  await useDomain(env.app.pool, env.shopId, DOMAIN);
  server = createServer((req, res) => {
    requests += 1;
    req.resume();
    req.on("end", () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe("webhook target addresses", () => {
  it("refuses loopback, private, link-local, CGNAT, unspecified, multicast and reserved addresses, v4 and v6", () => {
    const blocked = {
      "127.0.0.1": "a loopback address",
      "127.255.0.9": "a loopback address",
      "10.1.2.3": "a private address",
      "172.16.0.1": "a private address",
      "172.31.255.255": "a private address",
      "192.168.10.20": "a private address",
      "169.254.169.254": "a link-local address",
      "100.64.0.1": "a shared (CGNAT) address",
      "100.127.255.254": "a shared (CGNAT) address",
      "0.0.0.0": "an unspecified address",
      "224.0.0.251": "a multicast address",
      "255.255.255.255": "a broadcast address",
      "::": "an unspecified address",
      "::1": "a loopback address",
      "fc00::1": "a private address",
      "fd12:3456::1": "a private address",
      "fe80::1": "a link-local address",
      "ff02::1": "a multicast address",
      "::ffff:127.0.0.1": "a loopback address",
      "::ffff:a9fe:a9fe": "a link-local address",
      "64:ff9b::10.0.0.1": "a private address",
    };
    for (const [address, reason] of Object.entries(blocked)) expect([address, blockedAddressReason(address)]).toEqual([address, reason]);
    for (const address of ["93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "169.255.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) {
      expect([address, blockedAddressReason(address)]).toEqual([address, undefined]);
    }
  });

  it("refuses the special ranges a hand list missed, and judges an IPv6 address that carries an IPv4 one by that IPv4 address", () => {
    const table: [string, string | undefined][] = [
      // documentation (TEST-NET-1/2/3), benchmarking, the 6to4 relay anycast, IETF protocol assignments
      ["192.0.2.1", "a reserved address"],
      ["198.51.100.7", "a reserved address"],
      ["203.0.113.9", "a reserved address"],
      ["198.18.0.1", "a reserved address"],
      ["192.88.99.1", "a reserved address"],
      ["192.0.0.8", "a reserved address"],
      // IPv4-translated (::ffff:0:a.b.c.d), in hex and dotted
      ["::ffff:0:7f00:1", "a loopback address"],
      ["::ffff:0:10.0.0.1", "a private address"],
      ["::ffff:0:808:808", undefined],
      // 6to4: 2002:AABB:CCDD::/48 carries AA.BB.CC.DD
      ["2002:7f00:1::1", "a loopback address"],
      ["2002:a9fe:a9fe::1", "a link-local address"],
      ["2002:c000:201::1", "a reserved address"],
      ["2002:808:808::1", undefined],
      // NAT64: the well-known prefix carries an IPv4 address; the local-use prefix is refused
      ["64:ff9b::7f00:1", "a loopback address"],
      ["64:ff9b::8.8.8.8", undefined],
      ["64:ff9b:1::808:808", "a reserved address"],
      // Teredo: refused whatever it carries
      ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "a Teredo tunnel address"],
      // IPv4-compatible (deprecated), documentation, discard, outside 2000::/3, site-local, zone ids
      ["::127.0.0.1", "a reserved address"],
      ["::8.8.8.8", "a reserved address"],
      ["2001:db8::1", "a reserved address"],
      ["100::1", "a reserved address"],
      ["4000::1", "a reserved address"],
      ["fec0::1", "a site-local address"],
      ["fe80::1%eth0", "a link-local address"],
      ["::ffff:127.0.0.1%lo", "a loopback address"],
      // public
      ["1.1.1.1", undefined],
      ["2a00:1450:4001:80b::200e", undefined],
      ["::ffff:1.1.1.1", undefined],
    ];
    for (const [address, reason] of table) expect([address, blockedAddressReason(address)]).toEqual([address, reason]);
  });

  it("connects only after checking the address the name resolves to; with allowPrivate it goes through", async () => {
    requests = 0;
    const post = (url: string, allowPrivate: boolean) => postToWebhookTarget(url, { headers: { "content-type": "application/json" }, body: "{}", timeoutMs: 5000, allowPrivate });
    await expect(post(`http://localhost:${port}/hook`, false)).rejects.toThrow(BlockedTargetError);
    await expect(post(`http://localhost:${port}/hook`, false)).rejects.toThrow("the webhook endpoint localhost is not a public address: refused, webhooks go to public endpoints only");
    await expect(post(`http://localhost:${port}/hook`, false)).rejects.toMatchObject({ address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) as unknown, reason: "a loopback address" });
    await expect(post(`http://127.0.0.1:${port}/hook`, false)).rejects.toThrow("the webhook endpoint 127.0.0.1 is not a public address: refused, webhooks go to public endpoints only");
    await expect(post(`http://[::ffff:127.0.0.1]:${port}/hook`, false)).rejects.toThrow(BlockedTargetError);
    expect(requests).toBe(0);
    expect(await post(`http://127.0.0.1:${port}/hook`, true)).toEqual({ status: 204 });
    expect(requests).toBe(1);
  });
});

describe("PATCH /preorders/developer_settings refuses non-public endpoints", () => {
  it("refuses literal private addresses and localhost names with one message, and saves nothing", async () => {
    const cases: [string, string][] = [
      [`http://127.0.0.1:${port}/hook`, "webhook.url must not point to a loopback address (127.0.0.1): webhooks go to public endpoints only"],
      ["https://localhost/hook", "webhook.url must not point to this machine (localhost)"],
      ["https://api.localhost/hook", "webhook.url must not point to this machine (localhost)"],
      ["https://169.254.169.254/latest/meta-data", "webhook.url must not point to a link-local address (169.254.169.254): webhooks go to public endpoints only"],
      ["https://10.0.0.8/hook", "webhook.url must not point to a private address (10.0.0.8): webhooks go to public endpoints only"],
      ["https://100.64.1.1/hook", "webhook.url must not point to a shared (CGNAT) address (100.64.1.1): webhooks go to public endpoints only"],
      ["https://[::1]/hook", "webhook.url must not point to a loopback address (::1): webhooks go to public endpoints only"],
      ["https://[fd00::5]/hook", "webhook.url must not point to a private address (fd00::5): webhooks go to public endpoints only"],
      ["https://[fe80::1]/hook", "webhook.url must not point to a link-local address (fe80::1): webhooks go to public endpoints only"],
      // The URL parser reads a decimal host as IPv4: 2130706433 is 127.0.0.1.
      ["https://2130706433/hook", "webhook.url must not point to a loopback address (127.0.0.1): webhooks go to public endpoints only"],
      ["https://0.0.0.0/hook", "webhook.url must not point to an unspecified address (0.0.0.0): webhooks go to public endpoints only"],
      ["https://192.0.2.10/hook", "webhook.url must not point to a reserved address (192.0.2.10): webhooks go to public endpoints only"],
      ["https://[2002:7f00:1::1]/hook", "webhook.url must not point to a loopback address (2002:7f00:1::1): webhooks go to public endpoints only"],
      // With private targets refused, http is not accepted anywhere: not to a public name, not to localhost.
      ["http://hooks.example.com/preorders", "webhook.url must be an https URL"],
      [`http://localhost:${port}/hook`, "webhook.url must not point to this machine (localhost)"],
      ["ftp://hooks.example.com/preorders", "webhook.url must be an https URL"],
      ["not a url", "webhook.url must be an https URL"],
    ];
    for (const [url, message] of cases) {
      const answer = await api(env.app, "PATCH", "/preorders/developer_settings", { key: env.key, body: { webhook: { url, secret: SECRET } } });
      expect([url, answer.status, answer.body]).toEqual([url, 422, { errors: [message] }]);
    }
    expect((await api(env.app, "GET", "/preorders/developer_settings", { key: env.key })).body).toMatchObject({ webhook: { url: null, secret_set: false } });
  });

  it("accepts a public name (its address is checked at each delivery)", async () => {
    const answer = await api(env.app, "PATCH", "/preorders/developer_settings", { key: env.key, body: { webhook: { url: "https://hooks.example.com/preorders", secret: SECRET } } });
    expect(answer).toMatchObject({ status: 202, body: { webhook: { url: "https://hooks.example.com/preorders", secret_set: true } } });
  });
});

describe("delivery to a non-public address", () => {
  /** A URL stored before this rule, or a name that now resolves to this machine: written past the PATCH check. */
  async function storeEndpoint(url: string): Promise<void> {
    await api(env.app, "PATCH", "/preorders/developer_settings", { key: env.key, body: { webhook: { url: "https://hooks.example.com/preorders", secret: SECRET } } });
    await env.app.pool.query("update preorder_shop_settings set developer_settings = jsonb_set(developer_settings, '{webhook,url}', to_jsonb($2::text)) where shop_id = $1", [
      env.shopId,
      url,
    ]);
  }

  async function settledEvent(orderId: string) {
    return waitFor(`the created event of order ${orderId} settled`, async () => {
      const { rows } = await env.app.pool.query<{ id: string; status: string; attempts: number; last_status: number | null; last_error: string | null }>(
        "select id, status, attempts, last_status, last_error from preorder_webhook_events where order_id = $1 and topic = 'preorder_order.created'",
        [orderId],
      );
      return rows[0] && rows[0].status !== "pending" ? rows[0] : undefined;
    });
  }

  for (const [label, host, reason] of [
    // The shop's log names neither the address nor its kind (no resolving internal names through it).
    ["a name that resolves to loopback", "localhost", /^the webhook endpoint localhost is not a public address: refused, webhooks go to public endpoints only$/],
    ["a literal loopback address", "127.0.0.1", /^the webhook endpoint 127\.0\.0\.1 is not a public address: refused/],
  ] as const) {
    it(`is refused without a request for ${label}: the event is logged failed with the reason, not retried`, async () => {
      requests = 0;
      await storeEndpoint(`http://${host}:${port}/hook`);
      const offer = await insertOffer(env.app.pool, env.shopId);
      const orderId = await placeOrder(env, DOMAIN, "orders/create", orderPayload({ plan: offer.plan }));
      const event = await settledEvent(orderId);
      expect(event).toMatchObject({ status: "failed", attempts: 1, last_status: null });
      expect(event.last_error).toMatch(reason);
      expect(requests).toBe(0);
      // The job completes (no retry waiting in graphile-worker) and the log still says failed.
      await waitFor("the delivery job completed", async () => {
        const { rows } = await env.app.pool.query("select 1 from graphile_worker.jobs where key = $1", [`preorders_developer_webhook:${event.id}`]);
        return rows.length === 0 ? true : undefined;
      });
      const log = await api(env.app, "GET", `/preorders/developer_settings/webhook_events?order_id=${orderId}`, { key: env.key });
      expect(log.body).toMatchObject({ total: 1, events: [{ id: event.id, status: "failed", last_error: event.last_error }] });
    });
  }
});
