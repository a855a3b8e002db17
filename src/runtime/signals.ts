import type { Config } from "../config.ts";
import type { Log } from "../logger.ts";

/** Signals a drain lets pass before one forces the exit. */
const TOLERATED_DURING_DRAIN = 1;

/**
 * On SIGTERM or SIGINT: stop gracefully, exit 0. One more signal during the drain is tolerated:
 * Ctrl-C under `npm start` reaches node twice (the terminal signals the whole process group, and
 * npm forwards its own copy), as does `kill -TERM -- -PGID`. The signal after that, or the
 * shutdown timeout, exits at once with 1, after `abandon` (which must not wait for anything).
 */
export function stopOnSignals(stop: () => Promise<void>, config: Config, log: Log, abandon?: () => void): void {
  let signals = 0;
  const forceExit = () => {
    try {
      abandon?.();
    } finally {
      process.exit(1);
    }
  };
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1 + TOLERATED_DURING_DRAIN) {
      log.warn({ signal }, "signal during shutdown: exiting now");
      forceExit();
      return;
    }
    if (signals > 1) {
      log.info({ signal }, "shutdown under way, still waiting for running requests and jobs; another signal exits at once");
      return;
    }
    log.info({ signal }, "shutting down: no new requests or jobs, waiting for running ones");
    const timer = setTimeout(() => {
      log.error({ timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, "shutdown timed out");
      forceExit();
    }, config.SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    stop().then(
      () => {
        log.info("stopped");
        process.exit(0);
      },
      (error: unknown) => {
        log.error({ err: error }, "shutdown failed");
        forceExit();
      },
    );
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}
