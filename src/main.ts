import { parseArgs } from "node:util";
import { loadConfig } from "./config.ts";
import { createLogger } from "./logger.ts";
import { startService } from "./runtime/service.ts";
import { stopOnSignals } from "./runtime/signals.ts";

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
  stopOnSignals(service.stop, config, log);
} catch (error) {
  log.fatal({ err: error }, "failed to start");
  process.exitCode = 1;
}
