import { beforeAll, describe, expect, it } from "vitest";
import { createShopWithKey } from "./helpers/app.ts";
import { type SeededAlert, seedAlert, seedNotification } from "./helpers/failed-messages.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { type OpsAnswer, type OpsRequest, opsLogin, opsRequest } from "./helpers/ops.ts";

// The console's failed-messages view: both areas' failed messages with their reasons, by shop and
// area, a bulk retry behind the console's CSRF and origin checks, and its JSON.

const TOKEN = "ops-failed-messages-test-token-5b8e";
const env = useTestEnv({ config: { OPERATOR_TOKEN: TOKEN }, shop: "Failed View Shop" });

const request = (path: string, init?: OpsRequest): Promise<OpsAnswer> => opsRequest(env.app.origin, path, init);
const login = () => opsLogin(env.app.origin, TOKEN, "/ops/messages");

/** A retry posted from the console's own page; its redirect and the flash it set. */
async function postRetry(session: { cookie: string; csrf: string }, fields: [string, string][]): Promise<{ location: string | null; flash: string }> {
  const answer = await request("/ops/messages/retry", { method: "POST", cookie: session.cookie, form: [["csrf", session.csrf], ...fields], headers: { origin: env.app.origin } });
  expect(answer.status).toBe(303);
  const value = decodeURIComponent((answer.headers.get("set-cookie") ?? "").split(";")[0]?.split("=")[1] ?? "");
  return { location: answer.headers.get("location"), flash: Buffer.from(value, "base64url").toString("utf8") };
}

const status = async (table: "bis_ledger" | "preorder_notifications", id: string) =>
  (await env.pool.query<{ status: string }>(`select status from ${table} where id = $1`, [id])).rows[0]?.status;
const queued = async (key: string) => (await env.pool.query("select 1 from graphile_worker.jobs where key = $1", [key])).rowCount;

const HOSTILE = `550 <script>alert("x")</script> mailbox unavailable`;
let otherShop: string;
let alert: SeededAlert;
let notification: string;
let otherAlert: SeededAlert;

beforeAll(async () => {
  otherShop = (await createShopWithKey(env.pool, "Other Failed Shop")).shopId;
  alert = await seedAlert(env.pool, env.shopId, { contact: "refused@example.com", status: "failed", error: HOSTILE });
  notification = await seedNotification(env.pool, env.shopId, { recipient: "buyer@example.com", status: "failed", error: "still failing after 24 h of retries: 421 try later" });
  await seedAlert(env.pool, env.shopId, { contact: "waiting@example.com", status: "pending" });
  otherAlert = await seedAlert(env.pool, otherShop, { contact: "other@example.com", status: "failed", error: "550 no such user" });
});

describe("ops console: failed messages", () => {
  it("the overview links the view with the count of failed messages, in HTML and JSON", async () => {
    const { cookie } = await login();
    const overview = await request("/ops", { cookie });
    expect(overview.text).toMatch(/<a id="failed-messages-link" href="\/ops\/messages"><span class="count">3<\/span> message\(s\) failed for good<\/a>/);
    expect(overview.text).toContain('<a href="/ops/messages">Failed messages</a>');
    expect(JSON.parse((await request("/ops/api/overview", { cookie })).text)).toMatchObject({ failed_messages: 3 });
  });

  it("lists each failed message with its reason, filtered by shop (id or name) and area, in HTML and JSON", async () => {
    const { cookie } = await login();
    const page = await request("/ops/messages", { cookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<strong id="failed-count">3</strong>');
    for (const id of [alert.ledgerId, notification, otherAlert.ledgerId]) expect(page.text).toContain(`<tr data-message-id="${id}"`);
    expect(page.text).not.toContain(HOSTILE);
    expect(page.text).toContain("550 &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; mailbox unavailable");
    expect(page.text).toContain(`<td class="error">still failing after 24 h of retries: 421 try later</td>`);
    expect(page.text).toContain('<form id="retry-messages" method="post" action="/ops/messages/retry">');

    const byShop = await request(`/ops/messages?shop=${env.shopId}&area=preorders`, { cookie });
    expect(byShop.text).toContain(`<tr data-message-id="${notification}" data-area="preorders">`);
    expect(byShop.text).not.toContain(alert.ledgerId);
    expect(byShop.text).not.toContain(otherAlert.ledgerId);

    const json = JSON.parse((await request("/ops/api/messages?shop=other%20failed%20SHOP", { cookie })).text) as { messages: Record<string, unknown>[]; total: number };
    expect(json).toEqual({ total: 1, messages: [expect.objectContaining({ id: otherAlert.ledgerId, area: "back_in_stock", shop_id: otherShop, error: "550 no such user", created_at: expect.any(String) as unknown })] });
    expect((await request("/ops/api/messages?area=sms", { cookie })).status).toBe(400);
    expect(JSON.parse((await request("/ops/api/messages?shop=nobody", { cookie })).text)).toEqual({ errors: ["shop: no shop with the id or name nobody"] });
    expect((await request("/ops/api/messages")).status).toBe(401);
  });

  it("retries only from the console's page: the CSRF token and a same-origin request are required", async () => {
    const session = await login();
    const fields: [string, string][] = [["scope", "selected"], ["id", notification]];
    expect((await request("/ops/messages/retry", { method: "POST", cookie: session.cookie, form: fields, headers: { origin: env.app.origin } })).status).toBe(403);
    expect((await request("/ops/messages/retry", { method: "POST", cookie: session.cookie, form: [["csrf", session.csrf], ...fields], headers: { origin: "https://evil.example" } })).status).toBe(403);
    expect((await request("/ops/messages/retry", { method: "POST", cookie: session.cookie, form: [["csrf", session.csrf], ...fields] })).status).toBe(403);
    expect(await status("preorder_notifications", notification)).toBe("failed");
  });

  it("retries the ticked messages, then every failed one of a shop, then of every shop, saying how many of each area", async () => {
    const session = await login();
    const selected = await postRetry(session, [["scope", "selected"], ["shop", env.shopId], ["area", ""], ["id", notification]]);
    expect(selected).toEqual({ location: `/ops/messages?shop=${env.shopId}`, flash: "Queued again: 0 back-in-stock and 1 preorder message(s)." });
    expect(await status("preorder_notifications", notification)).toBe("pending");
    expect(await queued(`preorders_notification_send:${notification}`)).toBe(1);
    expect(await status("bis_ledger", alert.ledgerId)).toBe("failed");
    const shown = await request(selected.location ?? "", { cookie: session.cookie });
    expect(shown.text).toContain('<strong id="failed-count">1</strong>');

    expect((await postRetry(session, [["scope", "selected"]])).flash).toBe("No message selected: tick the rows to retry, or use Retry all.");

    const shopWide = await postRetry(session, [["scope", "all"], ["shop", env.shopId]]);
    expect(shopWide.flash).toBe("Queued again: 1 back-in-stock and 0 preorder message(s).");
    expect(await status("bis_ledger", alert.ledgerId)).toBe("pending");
    expect((await env.pool.query<{ status: string }>("select status from bis_signups where id = $1", [alert.signupId])).rows[0]?.status).toBe("pending");
    expect(await queued(`bis_send:${alert.ledgerId}`)).toBe(1);
    expect(await status("bis_ledger", otherAlert.ledgerId)).toBe("failed");

    expect((await postRetry(session, [["scope", "all"]])).flash).toBe("Queued again: 1 back-in-stock and 0 preorder message(s) of every shop.");
    expect(await status("bis_ledger", otherAlert.ledgerId)).toBe("pending");
    expect(JSON.parse((await request("/ops/api/messages", { cookie: session.cookie })).text)).toEqual({ messages: [], total: 0 });
  });
});
