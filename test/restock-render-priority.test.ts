import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { loadShopInfo } from "../src/account/shop-info.ts";
import { Renderer, type Recipient } from "../src/back_in_stock/templates/render.ts";
import { laneRank } from "../src/messaging/render/fair-queue.ts";
import { closeRenderPool } from "../src/messaging/render/pool.ts";
import { renderFields } from "../src/messaging/render/render.ts";
import { createShopWithKey } from "./helpers/app.ts";
import { seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";

// A restock burst's first messages render ahead of the follow-ups already waiting in the render
// pool's queue, also those of their own shop: with the queue fair between shops only, a burst
// queued after the batches of the variants restocked before it waited behind all of their renders.

const env = useTestEnv({ app: false, shop: false });

afterAll(closeRenderPool);

const FIELDS = [{ kind: "text" as const, source: "{% for i in (1..200) %}{{ customer.name | upcase }}{% endfor %}" }];
const people = (n: number, name: string) => Array.from({ length: n }, () => ({ customer: { name } }));

describe("the render pool's priorities", () => {
  it("orders a shop's own jobs interactive first, then sends by priority", () => {
    expect(laneRank({ interactive: true })).toBeGreaterThan(laneRank({ priority: 1_000 }));
    expect(laneRank({ priority: 1 })).toBeGreaterThan(laneRank({ priority: 0 }));
    expect(laneRank({})).toBe(laneRank({ priority: 0 }));
    expect(laneRank({ priority: 5_000 })).toBe(laneRank({ priority: 1_000 }));
    expect(laneRank({ priority: -1 })).toBeLessThan(laneRank({}));
  });

  it("renders a send of priority 1 before its own shop's batch queued before it", async () => {
    const finished: string[] = [];
    // 2,000 recipients: 40 jobs of 50, all queued before the urgent one.
    const batch = renderFields(FIELDS, people(2000, "a"), { owner: "shop-a" }).then(() => finished.push("batch"));
    const urgent = renderFields(FIELDS, people(1, "b"), { owner: "shop-a", priority: 1 }).then((rows) => {
      finished.push("urgent");
      return rows;
    });
    const [, rows] = await Promise.all([batch, urgent]);
    expect(rows[0]?.[0]).toBe("B".repeat(200));
    expect(finished).toEqual(["urgent", "batch"]);
  });

  it("Renderer.prepare(db, recipients, { priority }) renders at that priority", async () => {
    const { shopId } = await createShopWithKey(env.pool, "Render Priority Shop");
    await seedVariants(env.pool, shopId, [{ n: 701, product: 701 }]);
    await env.pool.query(
      `insert into message_templates (shop_id, area, stage, locale, channel, subject, body)
       values ($1, 'back_in_stock', 'initial', 'en', 'email', 'Back: {{ product.title }}', $2)`,
      [shopId, `<p>${FIELDS[0]?.source ?? ""}</p>`],
    );
    const shop = await loadShopInfo(env.pool, shopId);
    const options = { publicBaseUrl: "http://127.0.0.1:3000", unsubscribeSecret: "render-priority-secret-0123456789", emailFrom: "Shop <no-reply@localhost>" };
    const recipient = (): Recipient => ({
      ledgerId: randomUUID(),
      signupId: randomUUID(),
      stage: "initial",
      channel: "email",
      contact: "someone@example.com",
      locale: "en",
      firstName: "Ann",
      variantId: variantGid(701),
    });
    const followUps = new Renderer(shop, options);
    const burst = new Renderer(shop, options);
    // The burst's renderer has its template and variant loaded already, so its prepare queues at once.
    const warm = recipient();
    await burst.prepare(env.pool, [warm]);
    await burst.render(warm);

    const batch = Array.from({ length: 2000 }, recipient);
    await followUps.prepare(env.pool, batch);
    const first = recipient();
    await burst.prepare(env.pool, [first], { priority: 1 });
    const finished: string[] = [];
    await Promise.all([
      Promise.all(batch.map((r) => followUps.render(r))).then(() => finished.push("follow-ups")),
      burst.render(first).then((message) => {
        expect(message.channel === "email" && message.subject).toBe("Back: Product 701");
        finished.push("first message");
      }),
    ]);
    expect(finished).toEqual(["first message", "follow-ups"]);
  });
});
