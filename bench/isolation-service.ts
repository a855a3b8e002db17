// bench:isolation: the service (HTTP API and worker, one process, as `npm start` runs it but
// without migrations or the demo shop), in a process of its own so that the bench's client, which
// measures the latencies, never shares its event loop. Prints `BENCH_SERVICE_READY <url>` once it
// listens and takes jobs.
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/logger.ts";
import { startService } from "../src/runtime/service.ts";
import { stopOnSignals } from "../src/runtime/signals.ts";

const config = loadConfig();
const log = createLogger(config.LOG_LEVEL);
const service = await startService(config, log, { web: true, worker: true, migrate: false, demo: false });
stopOnSignals(service.stop, config, log);
if (!service.url) throw new Error("the service is not listening");
process.stdout.write(`BENCH_SERVICE_READY ${service.url}\n`);
