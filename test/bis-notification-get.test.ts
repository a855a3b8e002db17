import { beforeAll, describe, expect, it } from "vitest";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { waitFor } from "./helpers/wait.ts";

const env = useTestEnv({ shop: "Log shop", smtp: true, dataDir: true, worker: { pollInterval: 50 } });

async function addSignup(shopId: string, contact: string, status = "waiting"): Promise<string> {
  const { rows } = await env.app.pool.query<{ id: string }>(
    `insert into bis_signups (shop_id, variant_id, channel, contact, consent, status, unsubscribed_at)
     values ($1, $2, 'email', $3, true, $4, case when $4 = 'unsubscribed' then now() end) returning id`,
    [shopId, variantGid(701), contact, status],
  );
  return rows[0]?.id ?? "";
}

async function logEntry(signupId: string, status: string): Promise<string> {
  return waitFor(`a ${status} log entry`, async () => {
    const { rows } = await env.app.pool.query<{ id: string }>("select id::text from bis_notifications where signup_id = $1 and status = $2", [signupId, status]);
    return rows[0]?.id;
  });
}

let otherShop: { shopId: string; apiKey: string };

beforeAll(async () => {
  otherShop = await createShopWithKey(env.app.pool, "Neighbour shop");
  await seedVariants(env.app.pool, env.shopId, [{ n: 701, product: 70, productTitle: "Linen Shirt", available: 0 }]);
  await seedVariants(env.app.pool, otherShop.shopId, [{ n: 701, product: 70, productTitle: "Other Shirt", available: 0 }]);
});

describe("GET /back_in_stock/notifications/{id}", () => {
  it("shows a sent alert with its rendered subject, attempts and sent_at, as the list does plus those", async () => {
    const signup = await addSignup(env.shopId, "sent@example.com");
    expect((await invoke(env.app, "POST", `/back_in_stock/signups/${signup}/notify`, { key: env.key })).status).toBe(202);
    const id = await logEntry(signup, "sent");
    const answer = await invoke(env.app, "GET", `/back_in_stock/notifications/${id}`, { key: env.key });
    expect(answer.status).toBe(200);
    const body = answer.body as Record<string, unknown>;
    expect(body).toMatchObject({
      id,
      signup_id: signup,
      variant_id: variantGid(701),
      stage: "initial",
      channel: "email",
      recipient: "sent@example.com",
      status: "sent",
      blocked_reason: null,
      error: null,
      subject: "Linen Shirt is back in stock",
      attempts: 1,
    });
    expect(typeof body.message_id).toBe("string");
    expect(Date.parse(body.sent_at as string)).toBeGreaterThanOrEqual(Date.parse(body.created_at as string) - 1000);
    expect(env.sink.to("sent@example.com").map((m) => m.subject)).toEqual(["Linen Shirt is back in stock"]);
    const list = await invoke(env.app, "GET", `/back_in_stock/notifications?signup_id=${signup}`, { key: env.key });
    // The list shows each message's attempts too (decision 0249); the entry adds subject and sent_at.
    const { subject: _s, sent_at: _t, ...listed } = body;
    expect((list.body as { notifications: unknown[] }).notifications).toEqual([listed]);
  });

  it("shows a failed send with the provider's error and the subject it was sent with", async () => {
    env.sink.reject.add("refused@example.com");
    const signup = await addSignup(env.shopId, "refused@example.com");
    expect((await invoke(env.app, "POST", `/back_in_stock/signups/${signup}/notify`, { key: env.key })).status).toBe(202);
    const id = await logEntry(signup, "failed");
    const answer = await invoke(env.app, "GET", `/back_in_stock/notifications/${id}`, { key: env.key });
    expect(answer).toMatchObject({ status: 200, body: { status: "failed", subject: "Linen Shirt is back in stock", attempts: 1, sent_at: null } });
    expect((answer.body as { error: string }).error).toMatch(/550|reject/i);
  });

  it("shows a refusal: blocked_reason, no message, no subject", async () => {
    const signup = await addSignup(env.shopId, "gone@example.com", "unsubscribed");
    expect((await invoke(env.app, "POST", `/back_in_stock/signups/${signup}/notify`, { key: env.key })).status).toBe(409);
    const id = await logEntry(signup, "blocked");
    const answer = await invoke(env.app, "GET", `/back_in_stock/notifications/${id}`, { key: env.key });
    expect(answer).toMatchObject({
      status: 200,
      body: { id, status: "blocked", blocked_reason: "unsubscribed", message_id: null, subject: null, attempts: null, sent_at: null, error: null },
    });
  });

  it("keeps the entry once the signup is deleted, without signup or recipient", async () => {
    const signup = await addSignup(env.shopId, "deleted@example.com");
    expect((await invoke(env.app, "POST", `/back_in_stock/signups/${signup}/notify`, { key: env.key })).status).toBe(202);
    const id = await logEntry(signup, "sent");
    await env.app.pool.query("delete from bis_signups where id = $1", [signup]);
    const answer = await invoke(env.app, "GET", `/back_in_stock/notifications/${id}`, { key: env.key });
    expect(answer).toMatchObject({ status: 200, body: { id, signup_id: null, recipient: null, message_id: null, status: "sent", subject: "Linen Shirt is back in stock" } });
  });

  it("answers 404 for an unknown, malformed or another shop's id", async () => {
    const foreignSignup = await addSignup(otherShop.shopId, "neighbour@example.com", "unsubscribed");
    expect((await invoke(env.app, "POST", `/back_in_stock/signups/${foreignSignup}/notify`, { key: otherShop.apiKey })).status).toBe(409);
    const foreign = await logEntry(foreignSignup, "blocked");
    for (const id of [foreign, "999999999", "abc", "0", "99999999999999999999999"]) {
      const answer = await invoke(env.app, "GET", `/back_in_stock/notifications/${id}`, { key: env.key });
      expect(answer).toEqual(expect.objectContaining({ status: 404, body: { errors: [`Back-in-stock notification not found: ${id}`] } }));
    }
    expect((await invoke(env.app, "GET", `/back_in_stock/notifications/${foreign}`, { key: otherShop.apiKey })).status).toBe(200);
  });

  it("refuses a query parameter", async () => {
    const answer = await invoke(env.app, "GET", "/back_in_stock/notifications/1?verbose=true", { key: env.key });
    expect(answer).toMatchObject({ status: 422, body: { errors: ["verbose is not allowed"] } });
  });
});
