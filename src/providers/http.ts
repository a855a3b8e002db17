import { type EmailProvider, ProviderError } from "./types.ts";

interface ProviderHttpOptions {
  provider: EmailProvider;
  /** The provider's API base, e.g. http://127.0.0.1:3002/email_provider_3 */
  baseUrl: string;
  timeoutMs: number;
}

function retryAfter(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** The provider's own error text, shortened: never the request (which carries the credential). */
async function errorText(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const detail = body.detail ?? body.error ?? body.message ?? body.title;
    if (typeof detail === "string") return detail.slice(0, 200);
  } catch {
    // not JSON
  }
  return text.slice(0, 200);
}

/**
 * One HTTP call to a provider with a timeout, its failure classified (ProviderError): 401/403
 * `refused`, 429 and 5xx `transient` (with Retry-After), other 4xx `rejected`, network errors and
 * timeouts `transient`. No retry here: the caller's job retries with graphile-worker's backoff.
 */
export async function providerRequest<T>(options: ProviderHttpOptions, method: string, path: string, init: { headers: Record<string, string>; body?: unknown }): Promise<T> {
  const url = `${options.baseUrl.replace(/\/+$/, "")}${path}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: { accept: "application/json", ...(init.body === undefined ? {} : { "content-type": "application/json" }), ...init.headers },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    throw new ProviderError(options.provider, "transient", timedOut ? `no answer within ${options.timeoutMs} ms` : "unreachable", { cause: error });
  }
  if (response.ok) {
    const text = await response.text();
    try {
      return (text === "" ? {} : JSON.parse(text)) as T;
    } catch (error) {
      throw new ProviderError(options.provider, "transient", `answered ${response.status} with a body that is not JSON`, { status: response.status, cause: error });
    }
  }
  const detail = await errorText(response);
  const status = response.status;
  if (status === 401 || status === 403) throw new ProviderError(options.provider, "refused", `credentials refused (${status}${detail ? `: ${detail}` : ""})`, { status });
  if (status === 429) {
    const seconds = retryAfter(response.headers.get("retry-after"));
    throw new ProviderError(options.provider, "transient", `rate limited (429${seconds === undefined ? "" : `, retry after ${seconds} s`})`, { status, ...(seconds === undefined ? {} : { retryAfterSeconds: seconds }) });
  }
  if (status >= 500 || status === 408) throw new ProviderError(options.provider, "transient", `server error ${status}${detail ? `: ${detail}` : ""}`, { status });
  throw new ProviderError(options.provider, "rejected", `refused the request (${status}${detail ? `: ${detail}` : ""})`, { status });
}
