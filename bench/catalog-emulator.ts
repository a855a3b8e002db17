// The emulator for bench:catalog, in its own process so it never shares CPU time or heap with
// the process being measured. Prints one line `BENCH_EMULATOR <json>` when it listens.
import { startEmulator } from "../src/platform/emulator/index.ts";
import { positiveIntEnv } from "./lib.ts";

const products = positiveIntEnv("BENCH_PRODUCTS", 20_000);
const emulator = await startEmulator({
  seed: { products, variantsPerProduct: positiveIntEnv("BENCH_VARIANTS_PER_PRODUCT", 5), locations: 3, markets: 2, collections: 50 },
  throttle: {
    maximumAvailable: positiveIntEnv("BENCH_BUCKET_MAX", 20_000),
    restoreRate: positiveIntEnv("BENCH_RESTORE_RATE", 50_000),
  },
});
process.stdout.write(
  `BENCH_EMULATOR ${JSON.stringify({ graphqlUrl: emulator.graphqlUrl, accessToken: emulator.accessToken, origin: emulator.origin })}\n`,
);
process.on("SIGTERM", () => {
  void emulator.close().finally(() => process.exit(0));
});
