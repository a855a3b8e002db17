import type { Runner } from "graphile-worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unsubscribeUrl, verifyUnsubscribe } from "../src/back_in_stock/signups/unsubscribe-link.ts";
import type { JobRow } from "../src/core/jobs.ts";
import { type Emulator, startEmulator } from "../src/platform/emulator/index.ts";
import { startWorker } from "../src/runtime/worker.ts";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { productGid, seedSignups, seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { TEST_WEBHOOK_SECRET, testPlatformRuntime } from "./helpers/platform.ts";
import { waitFor } from "./helpers/wait.ts";
import { useTestEnv } from "./helpers/fixture.ts";

interface Signup {
  id: string;
  variant_id: string;
  product_id: string | null;
  channel: "email" | "sms";
  email: string | null;
  phone: string | null;
  locale: string;
  consent: boolean;
  customer_id: string | null;
  first_name: string | null;
  status: string;
  created_at: string;
  notified_at: string | null;
  unsubscribed_at: string | null;
}

const platform = testPlatformRuntime();
const env = useTestEnv();
let other: { shopId: string; apiKey: string };

beforeAll(async () => {
  other = await createShopWithKey(env.app.pool, "Other shop");
  await env.app.pool.query("update shops set default_locale = 'fr' where id = $1", [env.shopId]);
  await seedVariants(env.app.pool, env.shopId, [
    { n: 101, product: 10 },
    { n: 102, product: 10 },
    { n: 103, product: 11 },
    { n: 104, product: 11 },
  ]);
  await seedVariants(env.app.pool, other.shopId, [{ n: 901, product: 90 }]);
});

async function signup(body: Record<string, unknown>, apiKey = env.key) {
  return invoke(env.app, "POST", "/back_in_stock/signups", { key: apiKey, body });
}

async function created(body: Record<string, unknown>, apiKey = env.key): Promise<Signup> {
  const answer = await signup(body, apiKey);
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return answer.body as Signup;
}

async function workerJobs(task: string): Promise<{ payload: unknown }[]> {
  const { rows } = await env.app.pool.query<{ payload: unknown }>("select p.payload from graphile_worker.jobs j join graphile_worker._private_jobs p on p.id = j.id where j.task_identifier = $1 order by j.id", [task]);
  return rows;
}

async function patchSettings(body: unknown) {
  const answer = await invoke(env.app, "PATCH", "/back_in_stock/settings", { key: env.key, body });
  expect(answer.status).toBe(202);
}

describe("POST /back_in_stock/signups", () => {
  it("creates a signup from a numeric variant id, storing the gid, the lower-cased address and the shop's default locale", async () => {
    const answer = await signup({ variant_id: 101, channel: "email", email: "  Ada@Example.COM ", first_name: "Ada" });
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown,
      variant_id: variantGid(101),
      product_id: productGid(10),
      channel: "email",
      email: "ada@example.com",
      phone: null,
      locale: "fr",
      consent: false,
      customer_id: null,
      first_name: "Ada",
      quantity: 1,
      market_id: null,
      status: "waiting",
      created_at: expect.any(String) as unknown,
      notified_at: null,
      converted_at: null,
      converted_order_id: null,
      unsubscribed_at: null,
      last_error: null,
      updated_at: expect.any(String) as unknown,
      // No provider sync and no tagging is on in this shop.
      sync: {},
    });
  });

  it("accepts the gid and the numeric string, and normalises a phone number to E.164", async () => {
    const byGid = await created({ variant_id: variantGid(102), channel: "sms", phone: "+1 (555) 010-9999", locale: "en", consent: true });
    expect(byGid).toMatchObject({ variant_id: variantGid(102), channel: "sms", phone: "+15550109999", email: null, locale: "en", consent: true });
    const byString = await created({ variant_id: "103", channel: "email", email: "bob@example.com", customer_id: 42 });
    expect(byString).toMatchObject({ variant_id: variantGid(103), product_id: productGid(11), customer_id: "gid://shopify/Customer/42" });
  });

  it("answers the same signup for the same shop, variant, channel and contact", async () => {
    const first = await created({ variant_id: 104, channel: "email", email: "same@example.com" });
    const again = await created({ variant_id: variantGid(104), channel: "email", email: "SAME@example.com", first_name: "Sam", consent: true });
    expect(again.id).toBe(first.id);
    expect(again).toMatchObject({ first_name: "Sam", consent: true, created_at: first.created_at });
    // consent is never taken back by a repeat without it
    expect((await created({ variant_id: 104, channel: "email", email: "same@example.com" })).consent).toBe(true);
    const { rows } = await env.app.pool.query("select id from bis_signups where shop_id = $1 and contact = 'same@example.com'", [env.shopId]);
    expect(rows).toHaveLength(1);
    // Another variant or another channel is another signup.
    expect((await created({ variant_id: 101, channel: "email", email: "same@example.com" })).id).not.toBe(first.id);
  });

  it("refuses invalid input with one message per field", async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{}, ["variant_id is required", "channel is required"]],
      [{ variant_id: 101, channel: "fax", email: "a@b.co" }, ["channel must be one of: email, sms"]],
      [{ variant_id: "abc", channel: "email", email: "a@b.co" }, ["variant_id must be a numeric id or a gid://shopify/ProductVariant/<id>"]],
      [{ variant_id: "gid://shopify/Product/101", channel: "email", email: "a@b.co" }, ["variant_id must be a numeric id or a gid://shopify/ProductVariant/<id>"]],
      [{ variant_id: 101, channel: "email", email: "not-an-address" }, ["email must be a valid email"]],
      [{ variant_id: 101, channel: "sms", phone: "5550109999" }, ["phone must be an E.164 phone number such as +15550109999"]],
      [{ variant_id: 101, channel: "sms", phone: "+0123" }, ["phone must be an E.164 phone number such as +15550109999"]],
      [{ variant_id: 101, channel: "email" }, ["email is required"]],
      [{ variant_id: 101, channel: "sms", email: "a@b.co" }, ["phone is required", "email is not allowed with channel sms"]],
      [{ variant_id: 999, channel: "email", email: "a@b.co" }, ["variant_id must be a variant of this shop"]],
      // another shop's variant is not one of this shop's
      [{ variant_id: 901, channel: "email", email: "a@b.co" }, ["variant_id must be a variant of this shop"]],
      [{ variant_id: 101, channel: "email", email: "a@b.co", consent: "yes", nickname: "x" }, ["consent must be a boolean", "nickname is not allowed"]],
    ];
    for (const [body, errors] of cases) {
      const answer = await signup(body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(answer.body, JSON.stringify(body)).toEqual({ errors });
    }
    const { rows } = await env.app.pool.query("select 1 from bis_signups where contact = 'a@b.co'");
    expect(rows).toHaveLength(0);
  });

  it("requires consent when the shop requires opt-in", async () => {
    await patchSettings({ compliance: { opt_in_required: true } });
    try {
      for (const consent of [undefined, false]) {
        const answer = await signup({ variant_id: 101, channel: "email", email: "optin@example.com", consent });
        expect(answer.status).toBe(422);
        expect(answer.body).toEqual({ errors: ["consent must be true"] });
      }
      expect(await created({ variant_id: 101, channel: "email", email: "optin@example.com", consent: true })).toMatchObject({ consent: true });
    } finally {
      await patchSettings({ compliance: { opt_in_required: false } });
    }
  });

  it("refuses a channel that is off in the settings", async () => {
    await patchSettings({ channels: { sms: { enabled: false } } });
    try {
      const answer = await signup({ variant_id: 101, channel: "sms", phone: "+15550100000" });
      expect(answer.status).toBe(422);
      expect(answer.body).toEqual({ errors: ["channel sms is turned off in this shop's back-in-stock settings"] });
    } finally {
      await patchSettings({ channels: { sms: { enabled: true } } });
    }
  });

  it("resumes an unsubscribed signup only with consent, as waiting or, once alerted, as notified", async () => {
    const first = await created({ variant_id: 102, channel: "email", email: "resume@example.com" });
    await invoke(env.app, "POST", `/back_in_stock/signups/${first.id}/unsubscribe`, { key: env.key });
    const without = await created({ variant_id: 102, channel: "email", email: "resume@example.com" });
    expect(without).toMatchObject({ id: first.id, status: "unsubscribed" });
    const resumed = await created({ variant_id: 102, channel: "email", email: "resume@example.com", consent: true });
    expect(resumed).toMatchObject({ id: first.id, status: "waiting", unsubscribed_at: null, consent: true });

    await env.app.pool.query("update bis_signups set status = 'unsubscribed', notified_at = now(), unsubscribed_at = now() where id = $1", [first.id]);
    const alerted = await created({ variant_id: 102, channel: "email", email: "resume@example.com", consent: true });
    expect(alerted).toMatchObject({ id: first.id, status: "notified", unsubscribed_at: null });
  });

  it("queues the customer tag and the thank-you message in the signup's transaction, only when switched on", async () => {
    await env.app.pool.query("select graphile_worker.remove_job(key) from graphile_worker.jobs where task_identifier in ('bis_tag_customer', 'bis_send_thank_you')");
    await created({ variant_id: 101, channel: "email", email: "quiet@example.com", customer_id: 7 });
    expect(await workerJobs("bis_tag_customer")).toEqual([]);
    expect(await workerJobs("bis_send_thank_you")).toEqual([]);

    await patchSettings({ tagging: { enabled: true } });
    const thanks = await invoke(env.app, "PATCH", "/back_in_stock/templates/signup_thank_you/en", { key: env.key, body: { enabled: true } });
    expect(thanks.status).toBe(202);
    try {
      const tagged = await created({ variant_id: 101, channel: "email", email: "tagme@example.com", customer_id: "gid://shopify/Customer/8" });
      const anonymous = await created({ variant_id: 101, channel: "email", email: "anon@example.com" });
      expect(await workerJobs("bis_tag_customer")).toEqual([{ payload: { signup_id: tagged.id } }]);
      expect(await workerJobs("bis_send_thank_you")).toEqual([{ payload: { signup_id: tagged.id } }, { payload: { signup_id: anonymous.id } }]);
      // A refused signup queues nothing.
      expect((await signup({ variant_id: 999, channel: "email", email: "x@example.com", customer_id: 9 })).status).toBe(422);
      expect(await workerJobs("bis_tag_customer")).toHaveLength(1);
    } finally {
      await patchSettings({ tagging: { enabled: false } });
      await invoke(env.app, "PATCH", "/back_in_stock/templates/signup_thank_you/en", { key: env.key, body: { enabled: false } });
      await env.app.pool.query("select graphile_worker.remove_job(key) from graphile_worker.jobs where task_identifier in ('bis_tag_customer', 'bis_send_thank_you')");
    }
  });
});

describe("GET /back_in_stock/signups and /back_in_stock/signups/{id}", () => {
  let listShop: { shopId: string; apiKey: string };
  let ids: string[];

  beforeAll(async () => {
    listShop = await createShopWithKey(env.app.pool, "List shop");
    await seedVariants(env.app.pool, listShop.shopId, [
      { n: 201, product: 20 },
      { n: 202, product: 20 },
      { n: 203, product: 21 },
    ]);
    ids = await seedSignups(env.app.pool, listShop.shopId, [
      { variant: 201, product: 20, contact: "a@example.com", createdAt: "2026-01-01T10:00:00Z" },
      { variant: 201, product: 20, contact: "b@example.com", createdAt: "2026-01-02T10:00:00Z", status: "notified", notifiedAt: "2026-01-05T00:00:00Z" },
      { variant: 202, product: 20, contact: "+15550000001", channel: "sms", createdAt: "2026-01-03T10:00:00Z" },
      { variant: 203, product: 21, contact: "c@example.com", createdAt: "2026-01-04T10:00:00Z", status: "unsubscribed" },
      { variant: 203, product: 21, contact: "d@example.com", createdAt: "2026-01-04T10:00:00Z" },
    ]);
  });

  async function list(query: string, apiKey = listShop.apiKey): Promise<{ signups: Signup[]; next_cursor: string | null }> {
    const answer = await invoke(env.app, "GET", `/back_in_stock/signups${query}`, { key: apiKey });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body as { signups: Signup[]; next_cursor: string | null };
  }

  const contacts = (page: { signups: Signup[] }) => page.signups.map((s) => s.email ?? s.phone);

  it("lists newest first and filters by variant, product, status, channel, dates and contact", async () => {
    const all = await list("");
    expect(all.signups).toHaveLength(5);
    expect(all.signups.map((s) => s.created_at)).toEqual([...all.signups.map((s) => s.created_at)].sort().reverse());
    expect(all.next_cursor).toBeNull();
    expect(contacts(await list("?variant_id=201")).sort()).toEqual(["a@example.com", "b@example.com"]);
    expect(contacts(await list(`?variant_id=${encodeURIComponent(variantGid(201))}&status=notified`))).toEqual(["b@example.com"]);
    expect(contacts(await list("?product_id=21")).sort()).toEqual(["c@example.com", "d@example.com"]);
    expect(contacts(await list("?channel=sms"))).toEqual(["+15550000001"]);
    expect(contacts(await list("?status=unsubscribed"))).toEqual(["c@example.com"]);
    expect(contacts(await list("?created_from=2026-01-02&created_to=2026-01-03")).sort()).toEqual(["+15550000001", "b@example.com"]);
    expect(contacts(await list("?created_from=2026-01-02T10:00:01Z&created_to=2026-01-04T10:00:00Z"))).toEqual(["+15550000001"]);
    expect(contacts(await list("?contact=A@example.com"))).toEqual(["a@example.com"]);
    expect(contacts(await list("?contact=%2B1%20555%20000%200001"))).toEqual(["+15550000001"]);
  });

  it("pages by cursor through every signup exactly once, ties included", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await list(`?per_page=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.signups.length).toBeLessThanOrEqual(2);
      seen.push(...page.signups.map((s) => s.id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen.sort()).toEqual([...ids].sort());
  });

  it("refuses bad paging and filter values", async () => {
    const cases: [string, string[]][] = [
      ["?per_page=251", ["per_page must be at most 250"]],
      ["?per_page=0", ["per_page must be at least 1"]],
      ["?cursor=nonsense", ["cursor must be the next_cursor of a previous page"]],
      ["?status=gone", ["status must be one of: waiting, pending, notified, failed, converted, unsubscribed"]],
      ["?created_from=yesterday", ["created_from must be an ISO 8601 date or timestamp"]],
      ["?sort=asc", ["sort is not allowed"]],
    ];
    for (const [query, errors] of cases) {
      const answer = await invoke(env.app, "GET", `/back_in_stock/signups${query}`, { key: listShop.apiKey });
      expect(answer.status, query).toBe(422);
      expect(answer.body, query).toEqual({ errors });
    }
  });

  it("gets one signup, and answers 404 for an unknown, malformed or other shop's id", async () => {
    const one = await invoke(env.app, "GET", `/back_in_stock/signups/${ids[0]}`, { key: listShop.apiKey });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: ids[0], email: "a@example.com", variant_id: variantGid(201) });
    for (const id of [ids[0], "00000000-0000-0000-0000-000000000000", "not-an-id"]) {
      const answer = await invoke(env.app, "GET", `/back_in_stock/signups/${id}`, { key: other.apiKey });
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ errors: [`Back-in-stock signup not found: ${id}`] });
    }
    // and the other shop's list does not show them
    expect(contacts(await list("", other.apiKey))).not.toContain("a@example.com");
  });
});

describe("POST /back_in_stock/signups/{id}/transfer", () => {
  it("moves a waiting signup to another variant of the shop, keeping its place in the queue", async () => {
    const s = await created({ variant_id: 101, channel: "email", email: "move@example.com" });
    const answer = await invoke(env.app, "POST", `/back_in_stock/signups/${s.id}/transfer`, { key: env.key, body: { variant_id: 103 } });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ id: s.id, variant_id: variantGid(103), product_id: productGid(11), created_at: s.created_at, status: "waiting" });
    // To the variant it is on: unchanged.
    const same = await invoke(env.app, "POST", `/back_in_stock/signups/${s.id}/transfer`, { key: env.key, body: { variant_id: variantGid(103) } });
    expect(same).toMatchObject({ status: 202, body: { variant_id: variantGid(103) } });
    // The same shape as GET: every signup action answers the signup with its provider sync.
    const shown = await invoke(env.app, "GET", `/back_in_stock/signups/${s.id}`, { key: env.key });
    expect(same.body).toEqual(shown.body);
    expect(answer.body).toHaveProperty("sync");
  });

  it("refuses with 409 when the contact already waits for the target variant, or the signup is not waiting", async () => {
    const a = await created({ variant_id: 101, channel: "email", email: "clash@example.com" });
    const b = await created({ variant_id: 102, channel: "email", email: "clash@example.com" });
    const clash = await invoke(env.app, "POST", `/back_in_stock/signups/${a.id}/transfer`, { key: env.key, body: { variant_id: 102 } });
    expect(clash.status).toBe(409);
    expect((clash.body as { errors: string[] }).errors).toHaveLength(1);
    expect((clash.body as { errors: string[] }).errors[0]).toContain(b.id);
    expect((await invoke(env.app, "GET", `/back_in_stock/signups/${a.id}`, { key: env.key })).body).toMatchObject({ variant_id: variantGid(101) });

    await invoke(env.app, "POST", `/back_in_stock/signups/${a.id}/unsubscribe`, { key: env.key });
    const notWaiting = await invoke(env.app, "POST", `/back_in_stock/signups/${a.id}/transfer`, { key: env.key, body: { variant_id: 104 } });
    expect(notWaiting.status).toBe(409);
  });

  it("answers 422 for a variant of another shop and 404 for another shop's signup", async () => {
    const s = await created({ variant_id: 101, channel: "email", email: "stay@example.com" });
    const foreign = await invoke(env.app, "POST", `/back_in_stock/signups/${s.id}/transfer`, { key: env.key, body: { variant_id: 901 } });
    expect(foreign).toMatchObject({ status: 422, body: { errors: ["variant_id must be a variant of this shop"] } });
    const missing = await invoke(env.app, "POST", `/back_in_stock/signups/${s.id}/transfer`, { key: env.key, body: {} });
    expect(missing).toMatchObject({ status: 422, body: { errors: ["variant_id is required"] } });
    const otherShop = await invoke(env.app, "POST", `/back_in_stock/signups/${s.id}/transfer`, { key: other.apiKey, body: { variant_id: 901 } });
    expect(otherShop).toMatchObject({ status: 404, body: { errors: [`Back-in-stock signup not found: ${s.id}`] } });
  });
});

describe("unsubscribe", () => {
  it("POST /signups/{id}/unsubscribe is idempotent and scoped to the shop", async () => {
    const s = await created({ variant_id: 104, channel: "sms", phone: "+15550101010" });
    const first = await invoke(env.app, "POST", `/back_in_stock/signups/${s.id}/unsubscribe`, { key: env.key });
    expect(first.status).toBe(202);
    const body = first.body as Signup;
    expect(body.status).toBe("unsubscribed");
    expect(body.unsubscribed_at).not.toBeNull();
    const second = await invoke(env.app, "POST", `/back_in_stock/signups/${s.id}/unsubscribe`, { key: env.key });
    expect(second.body).toEqual(first.body);
    expect((await invoke(env.app, "GET", `/back_in_stock/signups/${s.id}`, { key: env.key })).body).toEqual(first.body);
    const foreign = await invoke(env.app, "POST", `/back_in_stock/signups/${s.id}/unsubscribe`, { key: other.apiKey });
    expect(foreign.status).toBe(404);
  });

  it("the signed link unsubscribes on POST without an API key, answers an HTML page, and is idempotent", async () => {
    const s = await created({ variant_id: 101, channel: "email", email: "link@example.com" });
    const url = unsubscribeUrl(`${env.app.origin}/`, TEST_WEBHOOK_SECRET, s.id);
    expect(url.startsWith(`${env.app.origin}/back_in_stock/unsubscribe?signup=${s.id}&sig=`)).toBe(true);
    // GET only asks (link scanners open links): see test/webhook-intake-limits.test.ts.
    const asked = await fetch(url);
    expect(asked.status).toBe(200);
    expect(await asked.text()).toContain("Product 10 (Size 101)");
    expect(((await invoke(env.app, "GET", `/back_in_stock/signups/${s.id}`, { key: env.key })).body as Signup).status).toBe("waiting");
    const first = await fetch(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "confirm=yes" });
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await first.text()).toContain("Product 10 (Size 101)");
    const after = (await invoke(env.app, "GET", `/back_in_stock/signups/${s.id}`, { key: env.key })).body as Signup;
    expect(after.status).toBe("unsubscribed");
    const again = await fetch(url, { method: "POST" });
    expect(again.status).toBe(200);
    expect(((await invoke(env.app, "GET", `/back_in_stock/signups/${s.id}`, { key: env.key })).body as Signup).unsubscribed_at).toBe(after.unsubscribed_at);
    // One-click (RFC 8058) POST to the same URL works too.
    const post = await fetch(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" });
    expect(post.status).toBe(200);
  });

  it("refuses a tampered, foreign or incomplete link and changes nothing", async () => {
    const s = await created({ variant_id: 101, channel: "email", email: "keep@example.com" });
    const t = await created({ variant_id: 102, channel: "email", email: "keep@example.com" });
    const good = new URL(unsubscribeUrl(env.app.origin, TEST_WEBHOOK_SECRET, s.id));
    const sig = good.searchParams.get("sig") ?? "";
    const bad = [
      `${env.app.origin}/back_in_stock/unsubscribe?signup=${s.id}&sig=${sig.slice(0, -2)}xx`,
      // a valid signature of another signup
      `${env.app.origin}/back_in_stock/unsubscribe?signup=${s.id}&sig=${new URL(unsubscribeUrl(env.app.origin, TEST_WEBHOOK_SECRET, t.id)).searchParams.get("sig") ?? ""}`,
      // signed with another secret
      unsubscribeUrl(env.app.origin, "another-secret-0123456789", s.id),
    ];
    for (const url of bad) {
      const answer = await fetch(url);
      expect(answer.status, url).toBe(403);
      expect(await answer.text()).toContain("not valid");
    }
    for (const url of [`${env.app.origin}/back_in_stock/unsubscribe`, `${env.app.origin}/back_in_stock/unsubscribe?signup=nope&sig=${sig}`]) {
      expect((await fetch(url)).status, url).toBe(400);
    }
    const { rows } = await env.app.pool.query<{ status: string }>("select status from bis_signups where id = any($1::uuid[])", [[s.id, t.id]]);
    expect(rows.map((r) => r.status)).toEqual(["waiting", "waiting"]);
    expect(verifyUnsubscribe(TEST_WEBHOOK_SECRET, s.id, sig)).toBe(true);
    expect(verifyUnsubscribe(TEST_WEBHOOK_SECRET, s.id, undefined)).toBe(false);
    expect(verifyUnsubscribe(TEST_WEBHOOK_SECRET, t.id, sig)).toBe(false);
  });
});

describe("POST /back_in_stock/signups/bulk_delete", () => {
  it("refuses more than 1000 ids, or none", async () => {
    const ids = Array.from({ length: 1001 }, (_, i) => `00000000-0000-0000-0000-${String(i).padStart(12, "0")}`);
    const over = await invoke(env.app, "POST", "/back_in_stock/signups/bulk_delete", { key: env.key, body: { ids } });
    expect(over).toMatchObject({ status: 422, body: { errors: ["ids must contain at most 1000 items"] } });
    const none = await invoke(env.app, "POST", "/back_in_stock/signups/bulk_delete", { key: env.key, body: { ids: [] } });
    expect(none.status).toBe(422);
    const { rows } = await env.app.pool.query("select 1 from jobs where kind = 'bis_signups_bulk_delete'");
    expect(rows).toHaveLength(0);
    // exactly 1000 is accepted
    const cap = await invoke(env.app, "POST", "/back_in_stock/signups/bulk_delete", { key: env.key, body: { ids: ids.slice(0, 1000) } });
    expect(cap.status).toBe(202);
    await env.app.pool.query("delete from jobs where kind = 'bis_signups_bulk_delete'");
    await env.app.pool.query("select graphile_worker.remove_job(key) from graphile_worker.jobs where task_identifier = 'bis_signups_bulk_delete'");
  });

  it("deletes in a job and reports an outcome per id; another shop's signups are untouched", async () => {
    const mine = await Promise.all(["del1@example.com", "del2@example.com"].map((email) => created({ variant_id: 104, channel: "email", email })));
    const theirs = await created({ variant_id: 901, channel: "email", email: "theirs@example.com" }, other.apiKey);
    const unknown = "00000000-0000-0000-0000-000000000001";
    const ids = [mine[0]?.id, theirs.id, "garbage", mine[1]?.id, unknown, mine[0]?.id];
    const answer = await invoke(env.app, "POST", "/back_in_stock/signups/bulk_delete", { key: env.key, body: { ids } });
    expect(answer.status).toBe(202);
    const handle = answer.body as { job_id: string; status_url: string };
    expect(handle.status_url).toBe(`/api/v2/external/jobs/${handle.job_id}`);

    let runner: Runner | undefined;
    try {
      runner = await startWorker({ pool: env.app.pool, log: env.app.log, config: env.app.config, platform }, { pollInterval: 100, cron: false });
      await waitFor("the bulk delete to finish", async () => {
        const { rows } = await env.app.pool.query<JobRow>("select * from jobs where id = $1", [handle.job_id]);
        return rows[0]?.status === "completed" ? rows[0] : undefined;
      });
    } finally {
      await runner?.stop();
    }
    const job = await invoke(env.app, "GET", `/jobs/${handle.job_id}`, { key: env.key });
    expect(job.body).toMatchObject({
      status: "completed",
      total: 5,
      processed: 5,
      result: {
        deleted: 2,
        not_found: 3,
        items: [
          { id: mine[0]?.id, outcome: "deleted" },
          { id: theirs.id, outcome: "not_found" },
          { id: "garbage", outcome: "not_found" },
          { id: mine[1]?.id, outcome: "deleted" },
          { id: unknown, outcome: "not_found" },
        ],
      },
    });
    expect((await invoke(env.app, "GET", `/back_in_stock/signups/${mine[0]?.id}`, { key: env.key })).status).toBe(404);
    expect((await invoke(env.app, "GET", `/back_in_stock/signups/${theirs.id}`, { key: other.apiKey })).status).toBe(200);
    // the other shop cannot see this shop's job
    expect((await invoke(env.app, "GET", `/jobs/${handle.job_id}`, { key: other.apiKey })).status).toBe(404);
  });
});

describe("customer tag on the platform", () => {
  let emulator: Emulator;

  beforeAll(async () => {
    emulator = await startEmulator({ seed: { products: 2, variantsPerProduct: 1, customers: 3 } });
  });

  afterAll(async () => {
    await emulator.close();
  });

  it("adds the shop's customer tag with tagsAdd, keeping the customer's other tags", async () => {
    const shop = await createShopWithKey(env.app.pool, "Tagging shop");
    await platform.connect(env.app.pool, shop.shopId, { domain: emulator.shopDomain, graphqlUrl: emulator.graphqlUrl, accessToken: emulator.accessToken });
    await seedVariants(env.app.pool, shop.shopId, [{ n: 301, product: 30 }]);
    const customer = emulator.store.customers[0];
    if (!customer) throw new Error("the emulator has no customer");
    customer.tags = ["vip"];
    expect((await invoke(env.app, "PATCH", "/back_in_stock/settings", { key: shop.apiKey, body: { tagging: { enabled: true, customer_tag: "waiting-list" } } })).status).toBe(202);
    const answer = await invoke(env.app, "POST", "/back_in_stock/signups", {
      key: shop.apiKey,
      body: { variant_id: 301, channel: "email", email: customer.email ?? "c@example.com", customer_id: customer.id },
    });
    expect(answer.status).toBe(202);
    let runner: Runner | undefined;
    try {
      runner = await startWorker({ pool: env.app.pool, log: env.app.log, config: env.app.config, platform }, { pollInterval: 100, cron: false });
      await waitFor("the customer tag", async () => (customer.tags.includes("waiting-list") ? true : undefined));
      await waitFor("the tag job to finish", async () => {
        const { rows } = await env.app.pool.query("select 1 from graphile_worker.jobs where task_identifier = 'bis_tag_customer'");
        return rows.length === 0 ? true : undefined;
      });
    } finally {
      await runner?.stop();
    }
    expect([...customer.tags].sort()).toEqual(["vip", "waiting-list"]);
  });
});
