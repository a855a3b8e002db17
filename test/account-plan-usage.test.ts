import { describe, expect, it } from "vitest";
import { claimStage } from "../src/back_in_stock/alerts/ledger.ts";
import { monthPeriod, reserveSends } from "../src/account/plans.ts";
import { invoke } from "./helpers/app.ts";
import { type SeedShop as Shop, newShop, seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { waitFor } from "./helpers/wait.ts";
import { deliverWebhook, webhooksProcessed } from "./helpers/webhook-delivery.ts";

const env = useTestEnv({ shop: false, smtp: true, dataDir: true, worker: { poolSize: 12, pollInterval: 50 } });

async function addSignups(shop: Shop, variant: number, contacts: string[], channel: "email" | "sms" = "email"): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, contact] of contacts.entries()) {
    const { rows } = await env.app.pool.query<{ id: string }>(
      `insert into bis_signups (shop_id, variant_id, channel, contact, consent, created_at)
       values ($1, $2, $3, $4, true, now() - interval '1 day' + make_interval(secs => $5)) returning id`,
      [shop.shopId, variantGid(variant), channel, contact, i],
    );
    ids.push(rows[0]?.id ?? "");
  }
  return ids;
}

async function setLimit(shop: Shop, limit: number, plan = "growth"): Promise<void> {
  await env.app.pool.query(
    `insert into account_settings (shop_id, plan, monthly_alert_limit) values ($1, $2, $3)
     on conflict (shop_id) do update set plan = excluded.plan, monthly_alert_limit = excluded.monthly_alert_limit`,
    [shop.shopId, plan, limit],
  );
}

async function ledgerStatuses(signupIds: string[]): Promise<{ status: string; last_error: string | null }[]> {
  const { rows } = await env.app.pool.query<{ signup_id: string; status: string; last_error: string | null }>(
    "select signup_id, status, last_error from bis_ledger where signup_id = any($1::uuid[]) and stage = 'initial'",
    [signupIds],
  );
  return signupIds.map((id) => {
    const row = rows.find((r) => r.signup_id === id);
    return row ? { status: row.status, last_error: row.last_error } : { status: "none", last_error: null };
  });
}

describe("GET /account/plan_usage", () => {
  it("a new shop is on the default plan with nothing used this UTC month", async () => {
    const shop = await newShop(env.app, "Usage Fresh");
    const answer = await invoke(env.app, "GET", "/account/plan_usage", { key: shop.key });
    expect(answer.status).toBe(200);
    const period = monthPeriod();
    expect(answer.body).toEqual({
      plan: "growth",
      plan_title: "Growth",
      monthly_alert_limit: 25_000,
      custom_limit: false,
      period: { from: period.start.toISOString(), to: period.end.toISOString() },
      alerts_sent: 0,
      in_flight: 0,
      remaining: 25_000,
      blocked_by_plan_limit: 0,
      by_channel: { email: { sent: 0 }, sms: { sent: 0 } },
    });
    await setLimit(shop, 0, "free");
    const free = await invoke(env.app, "GET", "/account/plan_usage", { key: shop.key });
    expect(free.body).toMatchObject({ plan: "free", plan_title: "Free", monthly_alert_limit: 0, custom_limit: true, remaining: 0 });
    await env.app.pool.query("update account_settings set monthly_alert_limit = null where shop_id = $1", [shop.shopId]);
    const plain = await invoke(env.app, "GET", "/account/plan_usage", { key: shop.key });
    expect(plain.body).toMatchObject({ plan: "free", monthly_alert_limit: 100, custom_limit: false, remaining: 100 });
  });

  it("refuses an unknown query parameter", async () => {
    const shop = await newShop(env.app, "Usage Query");
    const answer = await invoke(env.app, "GET", "/account/plan_usage?month=2026-01", { key: shop.key });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ errors: ["month is not allowed"] });
  });

  it("quota 2, three signups restocked: two are sent, the third is logged blocked plan_limit and never sent", async () => {
    const shop = await newShop(env.app, "Quota Shop");
    await setLimit(shop, 2);
    const settings = await invoke(env.app, "PATCH", "/back_in_stock/settings", { key: shop.key, body: { delivery: { batch_multiplier: 1, batch_interval_seconds: 3600 } } });
    expect(settings.status).toBe(202);
    await seedVariants(env.app.pool, shop.shopId, [{ n: 401, product: 40, available: 0, productTitle: "Wool Hat" }]);
    const ids = await addSignups(shop, 401, ["quota-1@example.com", "quota-2@example.com", "quota-3@example.com"]);

    await deliverWebhook(env.app.origin, "inventory_levels/update", { inventory_item_id: 401, location_id: 1, available: 5, updated_at: new Date(Date.now() + 1000).toISOString() }, shop.domain);
    await webhooksProcessed(env.app.pool, shop.shopId);
    await waitFor("the three alerts to be marked", async () => {
      const statuses = await ledgerStatuses(ids);
      return statuses.every((s) => s.status !== "none" && s.status !== "pending") ? statuses : undefined;
    });

    // Oldest first: the first two get the quota.
    expect(await ledgerStatuses(ids)).toEqual([
      { status: "sent", last_error: null },
      { status: "sent", last_error: null },
      { status: "blocked", last_error: "plan_limit" },
    ]);
    expect(env.sink.messages.filter((m) => m.to.startsWith("quota-")).map((m) => m.to).sort()).toEqual(["quota-1@example.com", "quota-2@example.com"]);

    const log = await invoke(env.app, "GET", "/back_in_stock/notifications?status=blocked", { key: shop.key });
    expect(log.status).toBe(200);
    const blocked = (log.body as { notifications: { signup_id: string; blocked_reason: string }[] }).notifications;
    expect(blocked.map((n) => [n.signup_id, n.blocked_reason])).toEqual([[ids[2], "plan_limit"]]);

    const usage = await invoke(env.app, "GET", "/account/plan_usage", { key: shop.key });
    expect(usage.status).toBe(200);
    expect(usage.body).toMatchObject({
      monthly_alert_limit: 2,
      custom_limit: true,
      alerts_sent: 2,
      in_flight: 0,
      remaining: 0,
      blocked_by_plan_limit: 1,
      by_channel: { email: { sent: 2 }, sms: { sent: 0 } },
    });
    // No reservation is left behind once the messages are marked.
    const { rows } = await env.app.pool.query<{ n: number }>("select coalesce(sum(reserved), 0)::int as n from account_send_usage where shop_id = $1", [shop.shopId]);
    expect(rows[0]?.n).toBe(0);
  });

  it("a message sent stays counted when its signup is deleted: the quota is not freed again", async () => {
    const shop = await newShop(env.app, "Deleted Quota Shop");
    await setLimit(shop, 1);
    const settings = await invoke(env.app, "PATCH", "/back_in_stock/settings", { key: shop.key, body: { delivery: { batch_multiplier: 1, batch_interval_seconds: 3600 } } });
    expect(settings.status).toBe(202);
    await seedVariants(env.app.pool, shop.shopId, [{ n: 451, product: 45, available: 0 }, { n: 452, product: 46, available: 0 }]);
    const [first] = await addSignups(shop, 451, ["deleted-quota-1@example.com"]);
    const [second] = await addSignups(shop, 452, ["deleted-quota-2@example.com"]);
    const restock = async (item: number) => {
      await deliverWebhook(env.app.origin, "inventory_levels/update", { inventory_item_id: item, location_id: 1, available: 5, updated_at: new Date(Date.now() + 1000).toISOString() }, shop.domain);
      await webhooksProcessed(env.app.pool, shop.shopId);
    };
    await restock(451);
    await waitFor("the first alert sent", async () => ((await ledgerStatuses([first ?? ""]))[0]?.status === "sent" ? true : undefined));
    const deleted = await invoke(env.app, "DELETE", `/back_in_stock/signups/${first ?? ""}`, { key: shop.key });
    expect(deleted.status).toBe(202);

    await restock(452);
    const [outcome] = await waitFor("the second alert marked", async () => {
      const statuses = await ledgerStatuses([second ?? ""]);
      return statuses[0]?.status === "none" || statuses[0]?.status === "pending" ? undefined : statuses;
    });
    expect(outcome).toEqual({ status: "blocked", last_error: "plan_limit" });
    const usage = await invoke(env.app, "GET", "/account/plan_usage", { key: shop.key });
    expect(usage.body).toMatchObject({ alerts_sent: 1, remaining: 0, by_channel: { email: { sent: 1 }, sms: { sent: 0 } } });
  });

  it("two concurrent reservations never admit more than the quota; a held reservation is kept, a released one frees its room", async () => {
    const shop = await newShop(env.app, "Race Shop");
    await setLimit(shop, 3);
    await seedVariants(env.app.pool, shop.shopId, [{ n: 501, product: 50, available: 0 }]);
    const signups = await addSignups(shop, 501, ["r1@example.com", "r2@example.com", "r3@example.com", "r4@example.com", "r5@example.com", "r6@example.com"]);
    const claimed = await claimStage(env.app.pool, shop.shopId, signups, "initial");
    const ledgerIds = claimed.map((c) => c.id);
    const [a, b] = await Promise.all([reserveSends(env.app.pool, shop.shopId, ledgerIds.slice(0, 3)), reserveSends(env.app.pool, shop.shopId, ledgerIds.slice(3))]);
    expect(a.size + b.size).toBe(3);
    const granted = [...a, ...b];

    // A sender that comes back for rows it reserved (a retry, the recovery sweep) keeps them.
    const again = await reserveSends(env.app.pool, shop.shopId, ledgerIds);
    expect([...again].sort()).toEqual([...granted].sort());
    const usage = await invoke(env.app, "GET", "/account/plan_usage", { key: shop.key });
    expect(usage.body).toMatchObject({ alerts_sent: 0, in_flight: 3, remaining: 0 });

    // A message no longer pending (here: set failed behind the mark's back, its count left) holds no room.
    const freed = granted[0] ?? "";
    await env.app.pool.query("update bis_ledger set status = 'failed' where id = $1", [freed]);
    const rest = ledgerIds.filter((id) => !granted.includes(id));
    const next = await reserveSends(env.app.pool, shop.shopId, rest);
    expect(next.size).toBe(1);

    // A reserved message whose signup is deleted (its ledger row with it) holds no room either.
    const orphan = granted[1] ?? "";
    await env.app.pool.query("delete from bis_signups where id = (select signup_id from bis_ledger where id = $1)", [orphan]);
    const left = rest.filter((id) => !next.has(id));
    const last = await reserveSends(env.app.pool, shop.shopId, left);
    expect(last.size).toBe(1);
  });
});
