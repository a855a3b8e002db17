import { parseArgs } from "node:util";
import { loadConfig } from "./config.ts";
import { createLogger } from "./logger.ts";
import { type Service, startService } from "./runtime/service.ts";
import { stopOnSignals } from "./runtime/signals.ts";

const { values } = parseArgs({ options: { web: { type: "boolean" }, worker: { type: "boolean" } } });
// Neither flag: everything in one process (npm start). Procfile processes pick one role each.
const all = !values.web && !values.worker;

const config = loadConfig();
const log = createLogger(config.LOG_LEVEL);

// Signals are taken from the start: a SIGTERM while the service is still starting (initdb,
// migrations waiting on another process's lock, the worker already claiming jobs) lets the step
// under way finish and starts nothing more, then stops gracefully, instead of killing the
// process mid-step.
let started: Service | undefined;
const stopRequested = new AbortController();
const starting = startService(config, log, {
  web: all || Boolean(values.web),
  worker: all || Boolean(values.worker),
  migrate: all,
  demo: all,
  signal: stopRequested.signal,
}).then((service) => (started = service));
// A forced exit (a third signal, the shutdown timeout) still takes down the embedded database
// this process started, instead of leaving it running for the next start to adopt.
stopOnSignals(
  async () => {
    stopRequested.abort();
    await (await starting).stop();
  },
  config,
  log,
  () => started?.database.embedded?.stopWithoutWaiting(),
);
try {
  await starting;
} catch (error) {
  log.fatal({ err: error }, "failed to start");
  process.exit(1);
}
