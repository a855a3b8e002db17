import { Logger as WorkerLogger } from "graphile-worker";
import { pino } from "pino";

export type Log = pino.Logger;

/** Paths that may carry a secret; pino replaces their values before anything is written. */
const REDACT = [
  'req.headers["x-auth-token"]',
  "req.headers.authorization",
  "headers.authorization",
  'headers["x-auth-token"]',
  "*.api_key",
  "*.apiKey",
  "*.password",
  "*.secret",
  "*.token",
  "api_key",
];

export function createLogger(level: string): Log {
  return pino({ level, redact: { paths: REDACT, censor: "[redacted]" } });
}

/** graphile-worker's logger interface, writing through the service's pino logger. */
export function workerLogger(log: Log): WorkerLogger {
  return new WorkerLogger((scope) => (level, message, meta) => {
    const fields = { worker: scope, ...meta };
    if (level === "error") log.error(fields, message);
    else if (level === "warning") log.warn(fields, message);
    else if (level === "info") log.info(fields, message);
    else log.debug(fields, message);
  });
}
