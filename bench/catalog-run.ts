// One measured run of bench:catalog in its own process, so its peak RSS is its own:
//   baseline  pages the catalog from the emulator with the mirror's own queries, writing nothing
//   sync      the service's full catalog sync into PostgreSQL
// Prints one line `BENCH_RESULT <json>`.
import { syncCatalog } from "../src/catalog/sync.ts";
import { createLogger } from "../src/logger.ts";
import {
  collectionPages,
  inventoryPages,
  locationPages,
  marketPages,
  productPages,
  variantPages,
} from "../src/platform/catalog.ts";
import { PlatformClient } from "../src/platform/client.ts";
import { peakRssMb, quietPool } from "./lib.ts";

const mode = process.argv[2];
const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const client = new PlatformClient({ graphqlUrl: env("BENCH_GRAPHQL_URL"), accessToken: env("BENCH_ACCESS_TOKEN") });
const log = createLogger("warn");

async function baseline(): Promise<number> {
  let variants = 0;
  const active: string[] = [];
  for await (const page of locationPages(client)) active.push(...page.filter((l) => l.active).map((l) => l.id));
  for await (const page of marketPages(client)) void page;
  for await (const page of collectionPages(client)) void page;
  for await (const page of productPages(client)) void page;
  for await (const page of variantPages(client)) variants += page.length;
  for (const location of active) for await (const page of inventoryPages(client, location)) void page;
  return variants;
}

async function sync(): Promise<number> {
  const pool = quietPool(env("DATABASE_URL"), 4);
  try {
    const result = await syncCatalog({ pool, client, shopId: env("BENCH_SHOP_ID"), mode: "full", log });
    return result.variants;
  } finally {
    await pool.end();
  }
}

const started = performance.now();
const variants = mode === "sync" ? await sync() : await baseline();
const seconds = (performance.now() - started) / 1000;
const stats = client.stats;
process.stdout.write(
  `BENCH_RESULT ${JSON.stringify({
    mode,
    variants,
    seconds,
    variants_per_second: variants / seconds,
    peak_rss_mb: peakRssMb(),
    calls: stats.requests,
    throttled: stats.throttled,
    throttled_share: stats.requests === 0 ? 0 : stats.throttled / stats.requests,
  })}\n`,
);
