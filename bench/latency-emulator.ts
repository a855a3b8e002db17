// The platform emulator for bench:latency, in its own process so that it never shares CPU time
// or heap with the service being measured. Seeds 2 x BENCH_VARIANTS one-variant products, every
// one sold out everywhere, signs and posts its webhooks to BENCH_WEBHOOK_URL, and prints
// `BENCH_EMULATOR <json>` when it listens. Then answers one line on stdin at a time:
//   stats                  -> `BENCH_STATS <json>` (requests, throttled, cost spent so far)
//   restock <n> <id,...>   -> `BENCH_RESTOCKED`: those variants' stock set to n at the first
//                             active location, without a webhook (the bench records it itself)
import readline from "node:readline";
import { startEmulator } from "../src/platform/emulator/index.ts";
import { positiveIntEnv } from "./lib.ts";

const variants = positiveIntEnv("BENCH_VARIANTS", 100);
const webhookUrl = process.env.BENCH_WEBHOOK_URL;
const secret = process.env.BENCH_WEBHOOK_SECRET;
if (!webhookUrl || !secret) throw new Error("BENCH_WEBHOOK_URL and BENCH_WEBHOOK_SECRET are required");
const emulator = await startEmulator({
  seed: { products: 2 * variants, variantsPerProduct: 1, customers: 1 },
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
    variants: store.variants.slice(0, 2 * variants).map((v, index) => ({ id: v.id, inventoryItemId: store.inventoryItemId(index) })),
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
  } else {
    throw new Error(`unknown command ${line}`);
  }
}
await emulator.close();
