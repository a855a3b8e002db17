import { createHash } from "node:crypto";
import { z } from "zod";
import { providerRequest } from "./http.ts";
import { type Audience, type EmailProvider, type ProviderAdapter, ProviderError, type Subscriber } from "./types.ts";

interface AdapterOptions {
  baseUrl: string;
  timeoutMs: number;
}

/** A provider's answer checked against the fields used; a surprise is transient (a broken answer is not the merchant's fault). */
function parseAnswer<T>(provider: EmailProvider, schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ProviderError(provider, "transient", `answered an unexpected body (${parsed.error.issues[0]?.message ?? "invalid"})`);
  return parsed.data;
}

/** email_provider_1: OAuth bearer token; audiences and contacts upserted by e-mail. */
export function emailProvider1(options: AdapterOptions): ProviderAdapter {
  const http = { provider: "email_provider_1" as const, ...options };
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  return {
    name: "email_provider_1",
    async listAudiences(token) {
      const body = await providerRequest<unknown>(http, "GET", "/v1/audiences", { headers: auth(token) });
      return parseAnswer(http.provider, z.object({ audiences: z.array(z.object({ id: z.string(), name: z.string() })) }), body).audiences.map(({ id, name }) => ({ id, name }));
    },
    async subscribe(token, audienceId, subscriber) {
      const body = await providerRequest<unknown>(http, "PUT", `/v1/audiences/${encodeURIComponent(audienceId)}/contacts/${encodeURIComponent(subscriber.email)}`, {
        headers: auth(token),
        body: { email: subscriber.email, first_name: subscriber.first_name, locale: subscriber.locale, source: "back_in_stock" },
      });
      return { member_id: parseAnswer(http.provider, z.object({ contact: z.object({ id: z.string() }) }), body).contact.id };
    },
  };
}

/** email_provider_2: an API key in `Authorization: Provider-API-Key <key>`; lists and subscriptions. */
export function emailProvider2(options: AdapterOptions): ProviderAdapter {
  const http = { provider: "email_provider_2" as const, ...options };
  const auth = (key: string) => ({ authorization: `Provider-API-Key ${key}` });
  return {
    name: "email_provider_2",
    async listAudiences(key) {
      const body = await providerRequest<unknown>(http, "GET", "/api/lists", { headers: auth(key) });
      const lists = parseAnswer(http.provider, z.object({ data: z.array(z.object({ id: z.string(), attributes: z.object({ name: z.string() }) })) }), body).data;
      return lists.map((l): Audience => ({ id: l.id, name: l.attributes.name }));
    },
    async subscribe(key, audienceId, subscriber) {
      const body = await providerRequest<unknown>(http, "POST", `/api/lists/${encodeURIComponent(audienceId)}/subscriptions`, {
        headers: auth(key),
        body: { data: { type: "subscription", attributes: { email: subscriber.email, first_name: subscriber.first_name, locale: subscriber.locale } } },
      });
      return { member_id: parseAnswer(http.provider, z.object({ data: z.object({ id: z.string() }) }), body).data.id };
    },
  };
}

/** The member id email_provider_3 derives from an address: md5 of the lower-cased e-mail. */
export function subscriberHash(email: string): string {
  return createHash("md5").update(email.toLowerCase()).digest("hex");
}

/** email_provider_3: HTTP basic auth with any user and the API key; lists and members (PUT upserts). */
export function emailProvider3(options: AdapterOptions): ProviderAdapter {
  const http = { provider: "email_provider_3" as const, ...options };
  const auth = (key: string) => ({ authorization: `Basic ${Buffer.from(`app:${key}`).toString("base64")}` });
  return {
    name: "email_provider_3",
    async listAudiences(key) {
      const body = await providerRequest<unknown>(http, "GET", "/3.0/lists?count=1000", { headers: auth(key) });
      return parseAnswer(http.provider, z.object({ lists: z.array(z.object({ id: z.string(), name: z.string() })) }), body).lists.map(({ id, name }) => ({ id, name }));
    },
    async subscribe(key, audienceId, subscriber: Subscriber) {
      const body = await providerRequest<unknown>(http, "PUT", `/3.0/lists/${encodeURIComponent(audienceId)}/members/${subscriberHash(subscriber.email)}`, {
        headers: auth(key),
        body: { email_address: subscriber.email, status_if_new: "subscribed", merge_fields: { FNAME: subscriber.first_name ?? "" }, language: subscriber.locale },
      });
      return { member_id: parseAnswer(http.provider, z.object({ id: z.string() }), body).id };
    },
  };
}

/**
 * email_provider_1's OAuth code exchange (the last step of the connection the app's Integrations
 * page starts): answers the access token. A refused code is `refused`.
 */
export async function exchangeEmailProvider1Code(options: AdapterOptions, code: string): Promise<{ access_token: string }> {
  const http = { provider: "email_provider_1" as const, ...options };
  try {
    const body = await providerRequest<unknown>(http, "POST", "/oauth/token", { headers: {}, body: { grant_type: "authorization_code", code } });
    return parseAnswer(http.provider, z.object({ access_token: z.string().min(1) }), body);
  } catch (error) {
    if (error instanceof ProviderError && error.kind === "rejected") throw new ProviderError("email_provider_1", "refused", "the authorization code was refused", error.status === undefined ? {} : { status: error.status });
    throw error;
  }
}
