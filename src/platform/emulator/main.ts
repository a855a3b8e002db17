import { createLogger } from "../../logger.ts";
import { startEmulator } from "./index.ts";
import { emulatorOptionsFromEnv } from "./main-config.ts";

/** `npm run emulator`: the emulator alone, configured from the environment, until SIGTERM or SIGINT. */
async function main(): Promise<void> {
  let config: ReturnType<typeof emulatorOptionsFromEnv>;
  try {
    config = emulatorOptionsFromEnv(process.env);
  } catch (error) {
    process.stderr.write(`emulator: invalid configuration\n${(error as Error).message}\n`);
    process.exit(1);
  }
  const log = createLogger(config.logLevel);
  const started = performance.now();
  const emulator = await startEmulator({ ...config.options, log });
  const { store } = emulator;
  log.info(
    {
      graphqlUrl: emulator.graphqlUrl,
      accessToken: emulator.accessToken,
      shopDomain: emulator.shopDomain,
      products: store.products.length,
      variants: store.variants.length,
      webhooks: config.options.webhooks?.url ?? null,
      startMs: Math.round(performance.now() - started),
    },
    "store platform emulator listening",
  );
  process.stdout.write(
    [
      `Admin GraphQL: POST ${emulator.graphqlUrl} (header X-Shopify-Access-Token: ${emulator.accessToken})`,
      `Admin routes:  GET ${emulator.origin}/admin/variants?limit=10, POST ${emulator.origin}/admin/inventory, POST ${emulator.origin}/admin/orders`,
      "",
    ].join("\n"),
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "store platform emulator stopping");
    emulator.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.warn({ err: error }, "store platform emulator did not close cleanly");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

await main();
