import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/**
 * The process's one Prometheus registry (prom-client): default process metrics plus the service's
 * own. Module state on purpose: the ledgers, the platform client and the worker count into it
 * without being handed anything, and whichever process serves /metrics (web, or the worker on
 * WORKER_METRICS_PORT) exposes everything it counted. Labels are bounded: action and task names,
 * channels, fixed outcomes — never paths, shop ids or keys.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900];

/** `action` is the matched action's name, `none` when no action matched (unknown routes, refusals before routing). */
export const requestDuration = new Histogram({
  name: "api_request_duration_seconds",
  help: "Dispatched API requests (v2, v1 and MCP) by action and status class, from authentication to answer",
  labelNames: ["action", "status"] as const,
  buckets: DURATION_BUCKETS,
  registers: [registry],
});

export const rateLimitRefusals = new Counter({
  name: "api_rate_limit_refusals_total",
  help: "Requests answered 429 by the rate limit, by action (none: the route matched no action)",
  labelNames: ["action"] as const,
  registers: [registry],
});

export const jobRuns = new Counter({
  name: "worker_jobs_total",
  help: "graphile-worker job runs by task and outcome (completed, retried: failed with attempts left, failed: no attempts left)",
  labelNames: ["task", "outcome"] as const,
  registers: [registry],
});

export const jobDuration = new Histogram({
  name: "worker_job_duration_seconds",
  help: "graphile-worker job run durations by task and outcome",
  labelNames: ["task", "outcome"] as const,
  buckets: JOB_BUCKETS,
  registers: [registry],
});

type SendOutcome = "sent" | "failed" | "blocked" | "retry";

const sends = new Counter({
  name: "messages_sends_total",
  help: "Back-in-stock alerts and preorder notifications by kind, channel and decided outcome (retry: a failure that will be tried again)",
  labelNames: ["kind", "channel", "outcome"] as const,
  registers: [registry],
});

/** Where a message's outcome is decided and committed (the two ledgers). */
export function countSend(kind: "back_in_stock" | "preorder", channel: string, outcome: SendOutcome): void {
  sends.inc({ kind, channel: channel === "email" || channel === "sms" ? channel : "other", outcome });
}

export const platformThrottled = new Counter({
  name: "platform_throttled_total",
  help: "Store platform answers that were throttled (HTTP 429 or a THROTTLED GraphQL error)",
  registers: [registry],
});

export const platformThrottleWait = new Counter({
  name: "platform_throttle_wait_seconds_total",
  help: "Time requests spent waiting for the local model of the platform's cost bucket to refill",
  registers: [registry],
});

/** The exposition text and its content type, for whichever listener serves /metrics. */
export async function exposition(): Promise<{ contentType: string; text: string }> {
  return { contentType: registry.contentType, text: await registry.metrics() };
}
