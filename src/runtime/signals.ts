import type { Config } from "../config.ts";
import type { Log } from "../logger.ts";

/**
 * On SIGTERM or SIGINT: stop taking requests and jobs, let running ones finish, close pools, exit 0.
 * A second signal, or the shutdown timeout, exits at once with 1.
 */
export function stopOnSignals(stop: () => Promise<void>, config: Config, log: Log): void {
  let signals = 0;
  const shutdown = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) {
      log.warn({ signal }, "second signal: exiting now");
      process.exit(1);
    }
    log.info({ signal }, "shutting down: no new requests or jobs, waiting for running ones");
    const timer = setTimeout(() => {
      log.error({ timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, "shutdown timed out");
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    stop().then(
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
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}
