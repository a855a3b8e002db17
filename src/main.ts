import { parseArgs } from "node:util";
import { loadConfig } from "./config.ts";
import { createLogger } from "./logger.ts";
import { startService } from "./runtime/service.ts";

const { values } = parseArgs({ options: { web: { type: "boolean" }, worker: { type: "boolean" } } });
// Neither flag: everything in one process (npm start). Procfile processes pick one role each.
const all = !values.web && !values.worker;

const config = loadConfig();
const log = createLogger(config.LOG_LEVEL);

try {
  const service = await startService(config, log, {
    web: all || Boolean(values.web),
    worker: all || Boolean(values.worker),
    migrate: all,
    demo: all,
  });
  let signals = 0;
  const shutdown = (signal: string) => {
    signals += 1;
    if (signals > 1) {
      log.warn({ signal }, "second signal: exiting now");
      process.exit(1);
    }
    log.info({ signal }, "shutting down: no new requests or jobs, waiting for running ones");
    const timer = setTimeout(() => {
      log.error("shutdown timed out");
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    service.stop().then(
      () => {
        log.info("stopped");
        process.exit(0);
      },
      (error: unknown) => {
        log.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
} catch (error) {
  log.fatal({ err: error }, "failed to start");
  process.exitCode = 1;
}
