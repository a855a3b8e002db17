import { isIP } from "node:net";
import path from "node:path";
import { z } from "zod";
import { DEFAULT_WEBHOOK_MAX_AGE_SECONDS } from "./webhooks/freshness.ts";
import { MAX_SEND_RETRY_HOURS } from "./messaging/retry.ts";

/** The embedded emulator's app client id (SHOPIFY_API_KEY's default): a real app's comes from its Partner Dashboard. */
export const EMULATOR_CLIENT_ID = "preorder-app-emulator";

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();

function isAddressOrCidr(value: string): boolean {
  const [address = "", prefix, ...rest] = value.split("/");
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d+$/.test(prefix) && bits <= (version === 4 ? 32 : 128);
}

/** REQUEST_TIMEOUT_MS's default, also the HTTP server's when no configuration is handed to it. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

const envSchema = z.object({
  DATABASE_URL: z.string().min(1).optional(),
  DATA_DIR: z.string().default(".data"),
  EMBEDDED_PG_PORT: port.default(54329),
  PORT: port.default(3000),
  HOST: z.string().default("127.0.0.1"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  DEMO_API_KEY: z.string().min(16).optional(),
  RATE_LIMIT_POINTS: positiveInt.default(360),
  RATE_LIMIT_WINDOW_SECONDS: positiveInt.default(60),
  BODY_LIMIT_BYTES: positiveInt.default(1_048_576),
  /** A request not received in full (headers and body) within this is answered 408 and disconnected. */
  REQUEST_TIMEOUT_MS: positiveInt.default(DEFAULT_REQUEST_TIMEOUT_MS),
  // A back-in-stock batch holds a connection and sends on up to two more: leave room for them,
  // graphile-worker and HTTP (at least WORKER_CONCURRENCY x 3 + 5). Each process opens all of
  // them at start and keeps them (decision 0236); a web-only process's webhook intake may use all
  // but four at once.
  DB_POOL_SIZE: positiveInt.default(20),
  WORKER_CONCURRENCY: positiveInt.default(5),
  /** Threads that render merchants' templates (src/messaging/render/pool.ts); unset: one less than the cores, at least one. */
  RENDER_THREADS: positiveInt.max(64).optional(),
  JOB_RETENTION_DAYS: positiveInt.default(30),
  SHUTDOWN_TIMEOUT_MS: positiveInt.default(30_000),
  /**
   * On SIGTERM, /readyz answers 503 this long while requests are still served, so a load balancer
   * stops sending new ones before the listener closes. 0 (the default): close at once.
   */
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).default(0),
  /** Each worker process records that it is alive this often (table worker_heartbeats). */
  WORKER_HEARTBEAT_SECONDS: positiveInt.default(10),
  /** A worker silent this long is dead: the worker_reap cron task frees the jobs it had locked. */
  WORKER_DEAD_AFTER_SECONDS: positiveInt.default(60),
  /** A worker-only process (`--worker`) serves GET /metrics on this port; unset: none (web processes serve it on PORT). */
  WORKER_METRICS_PORT: port.optional(),
  /** 32 bytes, base64: encrypts integration secrets at rest. Default: generated under DATA_DIR. */
  SECRETS_KEY: z.string().refine((v) => Buffer.from(v, "base64").length === 32, "must be 32 bytes, base64").optional(),
  /** The store platform's Admin GraphQL endpoint for the default shop; unset: the emulator. */
  PLATFORM_URL: z.url().optional(),
  PLATFORM_ACCESS_TOKEN: z.string().min(1).optional(),
  PLATFORM_SHOP_DOMAIN: z.string().min(1).optional(),
  /** The app's secret on the platform: signs webhooks. Default: generated under DATA_DIR. */
  PLATFORM_API_SECRET: z.string().min(16).optional(),
  /** The app's client id on Shopify (shopify.app.toml's client_id). Default: the embedded emulator's app. */
  SHOPIFY_API_KEY: z.string().min(1).default(EMULATOR_CLIENT_ID),
  /** Where stores and browsers reach this service: the OAuth redirect_uri's origin and the install links'. Default: PUBLIC_URL, else where it listens. */
  APP_URL: z.url().optional(),
  /** A platform webhook triggered (X-Shopify-Triggered-At) longer ago than this is refused. */
  WEBHOOK_MAX_AGE_SECONDS: positiveInt.default(DEFAULT_WEBHOOK_MAX_AGE_SECONDS),
  PLATFORM_EMULATOR_PORT: port.default(3001),
  PLATFORM_TIMEOUT_MS: positiveInt.default(30_000),
  /** The e-mail providers' API bases (src/providers); all unset: the provider emulator on PROVIDER_EMULATOR_PORT. */
  EMAIL_PROVIDER_1_URL: z.url().optional(),
  EMAIL_PROVIDER_2_URL: z.url().optional(),
  EMAIL_PROVIDER_3_URL: z.url().optional(),
  PROVIDER_EMULATOR_PORT: port.default(3002),
  PROVIDER_TIMEOUT_MS: positiveInt.default(10_000),
  /** Channels (src/channels): pooled SMTP when set, else .eml files in DATA_DIR/outbox. */
  SMTP_URL: z.string().min(1).optional(),
  SMTP_POOL_SIZE: positiveInt.default(5),
  /**
   * Messages one sender has in flight at once (an alert batch, a bulk notify): a crash re-sends at
   * most these, as each is marked when its send completes.
   */
  SEND_CONCURRENCY: positiveInt.default(10),
  /** How long a message that failed for a passing reason (server down, SMTP 4xx, 429, 5xx) is retried before it is failed. */
  SEND_RETRY_HOURS: z.coerce.number().positive().max(MAX_SEND_RETRY_HOURS).default(24),
  EMAIL_FROM: z.string().min(3).default("Demo Store <no-reply@localhost>"),
  /**
   * Comma-separated domains a shop's sender_email may use besides EMAIL_FROM's (those the mail
   * provider lets this service send from). A shop cannot send as any other domain: no From of
   * someone else's address through the operator's mail account.
   */
  SENDER_EMAIL_DOMAINS: z
    .string()
    .optional()
    .transform((v) => (v ?? "").split(",").map((x) => x.trim().toLowerCase()).filter(Boolean))
    .refine((list) => list.every((d) => /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(d)), "must be comma-separated domain names"),
  /**
   * Comma-separated alphanumeric SMS sender ids a shop's sms_sender may be (ids the operator has
   * registered). Unset: none, only E.164 numbers (which Twilio sends from only when the account
   * owns them). Matched without regard to case.
   */
  SMS_SENDER_IDS: z
    .string()
    .optional()
    .transform((v) => (v ?? "").split(",").map((x) => x.trim()).filter(Boolean)),
  /** Text messages through Twilio when both are set, else .sms.json files in DATA_DIR/outbox. */
  TWILIO_ACCOUNT_SID: z.string().startsWith("AC").optional(),
  TWILIO_AUTH_TOKEN: z.string().min(1).optional(),
  /** Sender number (E.164) or Messaging Service SID (MG...). */
  TWILIO_FROM: z.string().min(1).optional(),
  /** The Twilio API's base instead of https://api.twilio.com (a local fake in tests). */
  TWILIO_API_URL: z.url().optional(),
  /** Check every action's answer against its output schema (a 500 when it does not match): on in tests. */
  CHECK_RESPONSES: z.enum(["true", "false"]).default("false").transform((v) => v === "true"),
  /**
   * Let developer webhooks (preorder order-lifecycle events) reach loopback, private, link-local
   * and other non-public addresses. Off by default (an endpoint must be public: no request to this
   * service's own network); on only for a developer's own machine and the tests.
   */
  DEVELOPER_WEBHOOK_ALLOW_PRIVATE_TARGETS: z.enum(["true", "false"]).default("false").transform((v) => v === "true"),
  /** The operator console's (/ops) login token. Default: generated under DATA_DIR, printed once on the start that creates it. */
  OPERATOR_TOKEN: z.string().min(16).optional(),
  /**
   * Comma-separated addresses or CIDRs of the proxies in front of `web` whose X-Forwarded-For
   * names the client (the ops login's per-address limit). Unset: the connecting address is the client.
   */
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((v) => (v ?? "").split(",").map((x) => x.trim()).filter(Boolean))
    .refine((list) => list.every(isAddressOrCidr), "must be comma-separated IP addresses or CIDRs"),
  /** Public base URL of this service (status callbacks, links); default http://127.0.0.1:PORT, see publicUrl(). */
  PUBLIC_URL: z.url().optional(),
})
  .refine((env) => env.WORKER_DEAD_AFTER_SECONDS > 2 * env.WORKER_HEARTBEAT_SECONDS, {
    // One late beat must not make a live worker look dead (its jobs would run twice).
    path: ["WORKER_DEAD_AFTER_SECONDS"],
    message: "must be more than twice WORKER_HEARTBEAT_SECONDS",
  })
  .refine((env) => env.SHUTDOWN_DRAIN_MS < env.SHUTDOWN_TIMEOUT_MS, {
    // The drain is part of the shutdown: the timeout would kill the process before it closes.
    path: ["SHUTDOWN_DRAIN_MS"],
    message: "must be less than SHUTDOWN_TIMEOUT_MS",
  });

export type Config = z.infer<typeof envSchema> & { dataDir: string };

/** Parses the environment once; an invalid variable stops the process with its name. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid environment:\n${lines.join("\n")}`);
  }
  return { ...parsed.data, dataDir: path.resolve(parsed.data.DATA_DIR) };
}
