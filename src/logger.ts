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

interface LoggerOptions {
  /** File descriptor to write to: stdout (1, the default) or stderr (2, for the CLI, whose stdout carries results). */
  fd?: 1 | 2;
}

export function createLogger(level: string, options: LoggerOptions = {}): Log {
  const settings = { level, redact: { paths: REDACT, censor: "[redacted]" } };
  if (options.fd === 2) return pino(settings, pino.destination({ dest: 2, sync: true }));
  return pino(settings);
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
