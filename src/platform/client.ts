import { z } from "zod";
import { platformThrottled } from "../metrics/registry.ts";
import { PlatformError, type PlatformErrorKind } from "./errors.ts";
import { CostBucket, delay, type Reservation, type ThrottleStatus } from "./throttle.ts";

/** The subset of a pino logger the client writes to. */
export interface PlatformLogger {
  warn(fields: object, message: string): void;
}

export interface PlatformClientOptions {
  /** `{origin}/admin/api/2026-07/graphql.json` */
  graphqlUrl: string;
  accessToken: string;
  /** Per HTTP attempt, including reading the body. */
  timeoutMs?: number;
  /** HTTP attempts per request, the first included. */
  maxAttempts?: number;
  log?: PlatformLogger;
  /** Backoff before the first retry; doubles per retry, with jitter, up to maxRetryDelayMs. */
  minRetryDelayMs?: number;
  maxRetryDelayMs?: number;
  /** Expected cost of a query never seen before (the platform reports the real one in its answer). */
  defaultQueryCost?: number;
  /** Share one bucket between clients of the same store (the platform meters per store and app). */
  bucket?: CostBucket;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Points to have available before sending; defaults to the cost last reported for this query. */
  estimatedCost?: number;
  /**
   * false: a mutation that must not run twice (it makes something new). It is retried only when the
   * platform surely did not run it (throttled); an answer lost to a timeout, a network error or a
   * 5xx is thrown at once, for the caller to look for what it made before asking again.
   */
  idempotent?: boolean;
}

/** Anything that can send a query: the client, or a stand-in in tests. */
export interface PlatformRequester {
  request<T>(query: string, variables?: Record<string, unknown>, options?: RequestOptions): Promise<T>;
}

interface PlatformStats {
  /** HTTP attempts sent. */
  requests: number;
  /** THROTTLED answers and HTTP 429s. */
  throttled: number;
  retries: number;
  /** HTTP 5xx answers. */
  serverErrors: number;
  timeouts: number;
  /** Sum of actualQueryCost over answered queries. */
  costSpent: number;
}

const throttleStatusSchema = z.object({
  maximumAvailable: z.number(),
  currentlyAvailable: z.number(),
  restoreRate: z.number(),
});

const costSchema = z.object({
  requestedQueryCost: z.number(),
  actualQueryCost: z.number().nullish(),
  throttleStatus: throttleStatusSchema,
});

const envelopeSchema = z.looseObject({
  data: z.unknown().optional(),
  errors: z
    .union([
      z.array(z.looseObject({ message: z.string(), extensions: z.looseObject({ code: z.unknown() }).partial().nullish() })),
      // Shopify answers request-level refusals with a bare string: `{"errors":"[API] Invalid API key ..."}`.
      z.string().transform((message) => [{ message, extensions: undefined }]),
    ])
    .nullish(),
  extensions: z.looseObject({ cost: z.unknown() }).partial().nullish(),
});

/** The `errors` string or first message of a refusal's JSON body, for the error's message; never the request. */
const refusalSchema = z.looseObject({ errors: z.union([z.string(), z.array(z.looseObject({ message: z.string() })).min(1)]) });

/** What Shopify said in a 4xx body, one line, short: `[API] Invalid API key or access token (...)`. */
function refusalText(text: string): string {
  const parsed = refusalSchema.safeParse(safeJson(text));
  const said = parsed.success ? (typeof parsed.data.errors === "string" ? parsed.data.errors : parsed.data.errors[0]?.message ?? "") : "";
  return firstLine(said).slice(0, 200);
}

function firstLine(message: string): string {
  return message.split("\n", 1)[0]?.trim() ?? "";
}

type Cost = z.infer<typeof costSchema>;

/** One attempt's result: data, or a failure and whether another attempt may succeed. */
type Outcome =
  | { ok: true; data: unknown }
  | { ok: false; kind: PlatformErrorKind; status?: number; reason: string; retry: boolean; delayMs?: number };

const DEFAULTS = {
  timeoutMs: 30_000,
  maxAttempts: 5,
  minRetryDelayMs: 500,
  maxRetryDelayMs: 15_000,
  defaultQueryCost: 100,
};
/** A Retry-After beyond this is treated as this: a job should fail and be retried later rather than hang. */
const MAX_RETRY_AFTER_MS = 120_000;
/** Remembered query costs; the service sends a few dozen distinct queries, this only bounds a leak. */
const MAX_REMEMBERED_COSTS = 500;

/**
 * The one way the service talks to the store platform's Admin GraphQL API. Paces itself on the
 * platform's cost bucket, retries what may succeed on another try, and turns everything else
 * into a PlatformError. Never logs the access token or variables (they may carry customer data).
 */
export class PlatformClient implements PlatformRequester {
  readonly stats: PlatformStats = { requests: 0, throttled: 0, retries: 0, serverErrors: 0, timeouts: 0, costSpent: 0 };
  readonly bucket: CostBucket;
  readonly #url: string;
  readonly #token: string;
  readonly #timeoutMs: number;
  readonly #maxAttempts: number;
  readonly #minRetryDelayMs: number;
  readonly #maxRetryDelayMs: number;
  readonly #defaultQueryCost: number;
  readonly #log: PlatformLogger | undefined;
  readonly #costs = new Map<string, number>();

  constructor(options: PlatformClientOptions) {
    this.#url = options.graphqlUrl;
    this.#token = options.accessToken;
    this.#timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
    this.#maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULTS.maxAttempts);
    this.#minRetryDelayMs = options.minRetryDelayMs ?? DEFAULTS.minRetryDelayMs;
    this.#maxRetryDelayMs = Math.max(this.#minRetryDelayMs, options.maxRetryDelayMs ?? DEFAULTS.maxRetryDelayMs);
    this.#defaultQueryCost = options.defaultQueryCost ?? DEFAULTS.defaultQueryCost;
    this.#log = options.log;
    this.bucket = options.bucket ?? new CostBucket();
  }

  async request<T>(query: string, variables: Record<string, unknown> = {}, options: RequestOptions = {}): Promise<T> {
    const operation = operationName(query);
    const body = JSON.stringify({ query, variables });
    let last: Exclude<Outcome, { ok: true }> | undefined;
    for (let attempt = 1; attempt <= this.#maxAttempts; attempt++) {
      if (last) {
        this.stats.retries++;
        const delayMs = last.delayMs ?? this.#backoff(attempt - 1);
        this.#log?.warn(
          { operation, attempt, maxAttempts: this.#maxAttempts, kind: last.kind, status: last.status, reason: last.reason, delayMs },
          "platform request failed; retrying",
        );
        await delay(delayMs, options.signal);
      }
      // Looked up per attempt: a throttled answer has just told us the query's real cost.
      const cost = options.estimatedCost ?? this.#costs.get(query) ?? this.#defaultQueryCost;
      const reservation = await this.bucket.reserve(cost, options.signal);
      const outcome = await this.#attempt(query, body, reservation, options.signal);
      if (outcome.ok) return outcome.data as T;
      last = outcome;
      if (!outcome.retry || (options.idempotent === false && outcome.kind !== "throttled")) {
        throw new PlatformError(`Platform ${operation} failed: ${outcome.reason}`, {
          kind: outcome.kind,
          status: outcome.status,
          attempts: attempt,
        });
      }
    }
    // The loop ran at least once and every pass either returned, threw or set `last`.
    const final = last as Exclude<Outcome, { ok: true }>;
    throw new PlatformError(`Platform ${operation} failed after ${this.#maxAttempts} attempts: ${final.reason}`, {
      kind: final.kind,
      status: final.status,
      attempts: this.#maxAttempts,
    });
  }

  /** One HTTP exchange. Always settles the reservation, with the answer's reading when there is one. */
  async #attempt(query: string, body: string, reservation: Reservation, callerSignal?: AbortSignal): Promise<Outcome> {
    let reading: ThrottleStatus | undefined;
    try {
      const timeout = AbortSignal.timeout(this.#timeoutMs);
      const signal = callerSignal ? AbortSignal.any([timeout, callerSignal]) : timeout;
      this.stats.requests++;
      let response: Response;
      let text: string;
      try {
        response = await fetch(this.#url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json", "x-shopify-access-token": this.#token },
          body,
          signal,
        });
        text = await response.text();
      } catch (error) {
        // The caller gave up: not ours to retry.
        if (callerSignal?.aborted) throw callerSignal.reason;
        if (timeout.aborted) {
          this.stats.timeouts++;
          return { ok: false, kind: "timeout", reason: `no answer within ${this.#timeoutMs} ms`, retry: true };
        }
        return { ok: false, kind: "network", reason: `network error: ${describeNetworkError(error)}`, retry: true };
      }
      const { status } = response;
      const refusal = (what: string): string => {
        const said = refusalText(text);
        return said ? `HTTP ${status}: ${what} (${said})` : `HTTP ${status}: ${what}`;
      };
      if (status === 401) return { ok: false, kind: "auth", status, reason: refusal("the access token was refused"), retry: false };
      if (status === 403) return { ok: false, kind: "auth", status, reason: refusal("the access token lacks a scope this needs"), retry: false };
      if (status === 402) return { ok: false, kind: "shop_unavailable", status, reason: refusal("the shop is frozen (Payment Required)"), retry: false };
      if (status === 423) return { ok: false, kind: "shop_unavailable", status, reason: refusal("the shop is locked"), retry: false };
      if (status === 404) return { ok: false, kind: "not_found", status, reason: refusal("no Admin API here: the API version or the shop is wrong"), retry: false };
      if (status === 429) {
        this.stats.throttled++;
        platformThrottled.inc();
        const delayMs = retryAfterMs(response.headers.get("retry-after"));
        return { ok: false, kind: "throttled", status, reason: "HTTP 429 Too Many Requests", retry: true, ...(delayMs === undefined ? {} : { delayMs }) };
      }
      if (status >= 500) {
        this.stats.serverErrors++;
        return { ok: false, kind: "http", status, reason: `HTTP ${status} ${response.statusText}`.trim(), retry: true };
      }
      if (status < 200 || status >= 300) {
        return { ok: false, kind: "http", status, reason: `HTTP ${status} ${response.statusText}: ${text.slice(0, 200)}`, retry: false };
      }
      const envelope = envelopeSchema.safeParse(safeJson(text));
      if (!envelope.success) {
        return { ok: false, kind: "http", status, reason: `HTTP ${status} with a body that is not a GraphQL answer`, retry: false };
      }
      const cost = costSchema.safeParse(envelope.data.extensions?.cost);
      if (cost.success) {
        reading = cost.data.throttleStatus;
        this.#remember(query, cost.data);
      }
      const errors = envelope.data.errors ?? [];
      if (errors.some((e) => e.extensions?.code === "THROTTLED")) {
        this.stats.throttled++;
        platformThrottled.inc();
        // Retried once the bucket holds the query's cost, as the answer's cost says; the backoff when it says nothing.
        const delayMs = cost.success ? throttledWaitMs(cost.data) : undefined;
        return { ok: false, kind: "throttled", status, reason: "THROTTLED", retry: true, ...(delayMs === undefined ? {} : { delayMs }) };
      }
      if (cost.success) this.stats.costSpent += cost.data.actualQueryCost ?? cost.data.requestedQueryCost;
      if (errors.length > 0) {
        // Shopify's messages may run to several lines (MAX_COST_EXCEEDED's does): the first says it.
        const messages = errors.map((e) => (typeof e.extensions?.code === "string" ? `${firstLine(e.message)} (${e.extensions.code})` : firstLine(e.message)));
        // "Internal error. Looks like something went wrong on our end.": Shopify's own failure, worth another try.
        const internal = errors.every((e) => e.extensions?.code === "INTERNAL_SERVER_ERROR");
        return { ok: false, kind: "graphql", status, reason: `GraphQL errors: ${messages.join("; ")}`, retry: internal };
      }
      if (envelope.data.data === undefined || envelope.data.data === null) {
        return { ok: false, kind: "graphql", status, reason: "the answer has neither data nor errors", retry: false };
      }
      return { ok: true, data: envelope.data.data };
    } finally {
      this.bucket.settle(reservation, reading);
    }
  }

  #remember(query: string, cost: Cost): void {
    this.#costs.delete(query);
    this.#costs.set(query, cost.requestedQueryCost);
    if (this.#costs.size > MAX_REMEMBERED_COSTS) {
      const oldest = this.#costs.keys().next();
      if (!oldest.done) this.#costs.delete(oldest.value);
    }
  }

  /** Exponential backoff with "equal jitter": half fixed, half random, so retries of parallel calls spread out. */
  #backoff(retry: number): number {
    const base = Math.min(this.#maxRetryDelayMs, this.#minRetryDelayMs * 2 ** (retry - 1));
    return Math.round(base / 2 + (Math.random() * base) / 2);
  }
}

/** The operation's name for messages and logs: `query Foo` → Foo. */
function operationName(query: string): string {
  const named = /\b(?:query|mutation)\s+([A-Za-z_]\w*)/.exec(query);
  return named?.[1] ?? "request";
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** How long until the bucket holds a throttled query's cost again: its deficit over the restore rate. */
function throttledWaitMs(cost: Cost): number | undefined {
  const { currentlyAvailable, restoreRate, maximumAvailable } = cost.throttleStatus;
  if (!(restoreRate > 0)) return undefined;
  const deficit = Math.min(cost.requestedQueryCost, maximumAvailable) - currentlyAvailable;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, Math.ceil((deficit / restoreRate) * 1000)));
}

/** Retry-After is either delta-seconds or an HTTP date. */
function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}

function describeNetworkError(error: unknown): string {
  // fetch wraps the socket error ("fetch failed"); the cause says what happened (ECONNREFUSED, ...).
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${(error.cause as NodeJS.ErrnoException).code ?? error.cause.message}` : "";
    return `${error.message}${cause}`;
  }
  return String(error);
}
