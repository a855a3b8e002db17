// The service's worker as the Procfile runs it (every task, the crontab), in its own process, for
// bench:alerts and bench:latency. Prints `BENCH_WORKER_READY` once it takes jobs.
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/logger.ts";
import { startService } from "../src/runtime/service.ts";
import { stopOnSignals } from "../src/runtime/signals.ts";

const config = loadConfig();
const log = createLogger(config.LOG_LEVEL);
const service = await startService(config, log, { web: false, worker: true, migrate: false, demo: false });
stopOnSignals(service.stop, config, log);
process.stdout.write("BENCH_WORKER_READY\n");
