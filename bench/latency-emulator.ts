// The platform emulator for bench:latency, in its own process so that it never shares CPU time
// or heap with the service being measured, and warmed up before it starts (warmUp). Seeds
// 2 x BENCH_VARIANTS x BENCH_ROUNDS + BENCH_WARMUP_VARIANTS one-variant products (two sets of
// BENCH_VARIANTS a round), every one sold out everywhere, signs and posts its
// webhooks to BENCH_WEBHOOK_URL, and prints
// `BENCH_EMULATOR <json>` when it listens. Then answers one line on stdin at a time:
//   stats                  -> `BENCH_STATS <json>` (requests, throttled, cost spent so far)
//   restock <n> <id,...>   -> `BENCH_RESTOCKED`: those variants' stock set to n at the first
//                             active location, without a webhook (the bench records it itself)
//   restock-webhook <n> <id,...>
//                          -> `BENCH_RESTOCKED_AT <json>`: those variants' stock set to n as a
//                             merchant's admin change does (Emulator.setInventory: the level, then
//                             its signed webhook to the service), one after the other at once; the
//                             json maps each id to the epoch ms of its change. Made here, not by
//                             HTTP requests from the bench: those requests took 240 ms of the
//                             service's event loop when the bench shared its process, and a third
//                             of a core of this one's, neither of which a platform spends.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import readline from "node:readline";
import { startEmulator } from "../src/platform/emulator/index.ts";
import { positiveIntEnv } from "./lib.ts";

const variants = positiveIntEnv("BENCH_VARIANTS", 100);
const rounds = positiveIntEnv("BENCH_ROUNDS", 1);
const measured = 2 * variants * rounds;
// The bench's warm-up restocks these, after the 2 x BENCH_VARIANTS x BENCH_ROUNDS it measures.
const warmup = positiveIntEnv("BENCH_WARMUP_VARIANTS", variants);
const webhookUrl = process.env.BENCH_WEBHOOK_URL;
const secret = process.env.BENCH_WEBHOOK_SECRET;
if (!webhookUrl || !secret) throw new Error("BENCH_WEBHOOK_URL and BENCH_WEBHOOK_SECRET are required");

/**
 * A platform answers a restock warm. This process's first admin restocks and webhook deliveries
 * took 150 ms and more on top (compiling the routes, fetch's first use): a throwaway emulator of
 * the same code restocks `variants` variants at once a few times, its webhooks to a sink here, so
 * that none of it counts as the service's latency. The service sees none of these.
 */
async function warmUp(): Promise<void> {
  const sink = createServer((request, response) => {
    request.resume();
    request.on("end", () => response.end("{}"));
  });
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
  const warm = await startEmulator({
    seed: { products: variants, variantsPerProduct: 1, customers: 1 },
    webhooks: { url: `http://127.0.0.1:${(sink.address() as AddressInfo).port}/webhooks/platform`, secret: secret ?? "" },
  });
  const at = warm.store.activeLocations()[0];
  if (!at) throw new Error("the warm-up emulator has no active location");
  for (let round = 1; round <= 3; round++) {
    await Promise.all(
      warm.store.variants.map((v) =>
        fetch(`${warm.origin}/admin/inventory`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ variant_id: v.id, available: round, location_id: at.id }),
        }).then((r) => r.arrayBuffer()),
      ),
    );
    await warm.webhooksSettled();
  }
  await warm.close();
  await new Promise<void>((resolve) => sink.close(() => resolve()));
}
await warmUp();
const emulator = await startEmulator({
  seed: { products: measured + warmup, variantsPerProduct: 1, customers: 1 },
  webhooks: { url: webhookUrl, secret },
});
const store = emulator.store;
const locations = store.activeLocations();
const location = locations[0];
if (!location) throw new Error("the emulator has no active location");
for (let index = 0; index < store.variants.length; index++) for (const l of locations) store.setAvailable(index, l, 0);

process.stdout.write(
  `BENCH_EMULATOR ${JSON.stringify({
    origin: emulator.origin,
    graphqlUrl: emulator.graphqlUrl,
    accessToken: emulator.accessToken,
    shopDomain: emulator.shopDomain,
    locationId: location.id,
    variants: store.variants.slice(0, measured + warmup).map((v, index) => ({ id: v.id, inventoryItemId: store.inventoryItemId(index) })),
  })}\n`,
);

for await (const line of readline.createInterface({ input: process.stdin })) {
  const [command, ...args] = line.trim().split(/\s+/);
  if (command === "stats") {
    process.stdout.write(`BENCH_STATS ${JSON.stringify(emulator.stats())}\n`);
  } else if (command === "restock") {
    const available = Number(args[0]);
    for (const id of (args[1] ?? "").split(",").filter(Boolean).map(Number)) {
      const variant = store.variant(id);
      if (!variant) throw new Error(`variant ${id} does not exist`);
      store.setAvailable(store.variantIndex(variant), location, available);
    }
    process.stdout.write("BENCH_RESTOCKED\n");
  } else if (command === "restock-webhook") {
    const available = Number(args[0]);
    const sentAt: Record<number, number> = {};
    for (const id of (args[1] ?? "").split(",").filter(Boolean).map(Number)) {
      const variant = store.variant(id);
      if (!variant) throw new Error(`variant ${id} does not exist`);
      sentAt[id] = performance.timeOrigin + performance.now();
      emulator.setInventory(store.variantIndex(variant), location, available);
    }
    process.stdout.write(`BENCH_RESTOCKED_AT ${JSON.stringify(sentAt)}\n`);
  } else {
    throw new Error(`unknown command ${line}`);
  }
}
await emulator.close();
