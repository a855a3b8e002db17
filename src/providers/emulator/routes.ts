import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { subscriberHash } from "../adapters.ts";
import { EMAIL_PROVIDERS, type EmailProvider } from "../types.ts";
import type { EmulatedAccount, EmulatedAudience, ProviderFaults, ProviderState } from "./state.ts";

type States = Record<EmailProvider, ProviderState>;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

class Answer extends Error {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers: Record<string, string>;
  constructor(status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) {
    super(`provider emulator answer ${status}`);
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function bearer(request: FastifyRequest, scheme: string): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== "string") return undefined;
  const [given, ...rest] = header.split(" ");
  return given?.toLowerCase() === scheme.toLowerCase() ? rest.join(" ").trim() : undefined;
}

function basicPassword(request: FastifyRequest): string | undefined {
  const encoded = bearer(request, "Basic");
  if (!encoded) return undefined;
  const decoded = Buffer.from(encoded, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

/**
 * Runs one API call of a provider: counts it, applies latency and injected faults, authenticates
 * with `credential(request)`, then serves it. Errors reach the client in the provider's own shape.
 */
function serve(state: ProviderState, credential: (request: FastifyRequest) => string | undefined, handler: (account: EmulatedAccount, request: FastifyRequest, reply: FastifyReply) => unknown) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    state.stats.requests += 1;
    try {
      if (state.faults.latencyMs) await sleep(state.faults.latencyMs);
      const fault = state.fault();
      if (fault) throw new Answer(fault.status, fault.body, fault.headers);
      const account = state.faults.refuseKeys ? undefined : state.account(credential(request));
      if (!account) {
        state.stats.faulted += state.faults.refuseKeys ? 1 : 0;
        throw new Answer(401, { error: "Invalid credentials", detail: "Your API key or access token is not valid" });
      }
      return await handler(account, request, reply);
    } catch (error) {
      if (error instanceof Answer) return reply.code(error.status).headers(error.headers).send(error.body);
      throw error;
    }
  };
}

function audienceOf(account: EmulatedAccount, id: string): EmulatedAudience {
  const audience = account.audiences.get(id);
  if (!audience) throw new Answer(404, { error: "Resource Not Found", detail: `The audience ${id} could not be found` });
  return audience;
}

function bodyOf<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new Answer(400, { error: "Invalid Resource", detail: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") });
  return parsed.data;
}

function checkEmail(email: string): string {
  if (!EMAIL.test(email)) throw new Answer(400, { error: "Invalid Resource", detail: `${email} looks fake or invalid` });
  return email.toLowerCase();
}

/** email_provider_1: OAuth token endpoint, audiences, contacts upserted by e-mail. */
function provider1(app: FastifyInstance, state: ProviderState): void {
  const auth = (request: FastifyRequest) => bearer(request, "Bearer");
  app.post("/email_provider_1/oauth/token", async (request, reply) => {
    state.stats.requests += 1;
    const body = z.object({ grant_type: z.literal("authorization_code"), code: z.string().min(1) }).safeParse(request.body);
    if (!body.success || body.data.code === "invalid") return reply.code(400).send({ error: "invalid_grant" });
    const token = state.issueCredential();
    const account = state.account(token);
    return { access_token: token, token_type: "bearer", account_id: account?.id, account_name: account?.name };
  });
  app.get("/email_provider_1/v1/audiences", serve(state, auth, (account) => ({ audiences: [...account.audiences.values()].map((a) => ({ id: a.id, name: a.name, member_count: a.members.size })) })));
  app.put<{ Params: { audience: string; email: string } }>(
    "/email_provider_1/v1/audiences/:audience/contacts/:email",
    serve(state, auth, (account, request) => {
      const params = request.params as { audience: string; email: string };
      const audience = audienceOf(account, params.audience);
      const body = bodyOf(z.object({ email: z.string(), first_name: z.string().nullish(), locale: z.string().nullish() }).passthrough(), request.body);
      const email = checkEmail(body.email);
      if (email !== params.email.toLowerCase()) throw new Answer(400, { error: "Invalid Resource", detail: "email does not match the path" });
      const member = state.upsertMember(audience, { email, first_name: body.first_name ?? null, locale: body.locale ?? null }, () => "");
      return { contact: { id: member.id, email: member.email, first_name: member.first_name, locale: member.locale, status: member.status } };
    }),
  );
  app.get<{ Params: { audience: string } }>(
    "/email_provider_1/v1/audiences/:audience/contacts",
    serve(state, auth, (account, request) => ({ contacts: [...audienceOf(account, (request.params as { audience: string }).audience).members.values()] })),
  );
}

/** email_provider_2: `Authorization: Provider-API-Key <key>`; lists, subscriptions and profiles. */
function provider2(app: FastifyInstance, state: ProviderState): void {
  const auth = (request: FastifyRequest) => bearer(request, "Provider-API-Key");
  app.get("/email_provider_2/api/lists", serve(state, auth, (account) => ({ data: [...account.audiences.values()].map((a) => ({ type: "list", id: a.id, attributes: { name: a.name } })) })));
  app.post(
    "/email_provider_2/api/lists/:audience/subscriptions",
    serve(state, auth, (account, request, reply) => {
      const audience = audienceOf(account, (request.params as { audience: string }).audience);
      const body = bodyOf(
        z.object({ data: z.object({ type: z.literal("subscription"), attributes: z.object({ email: z.string(), first_name: z.string().nullish(), locale: z.string().nullish() }) }) }),
        request.body,
      );
      const attributes = body.data.attributes;
      const member = state.upsertMember(audience, { email: checkEmail(attributes.email), first_name: attributes.first_name ?? null, locale: attributes.locale ?? null }, (email) => `prof_${subscriberHash(email).slice(0, 12)}`);
      return reply.code(201).send({ data: { type: "profile", id: member.id, attributes: { email: member.email, first_name: member.first_name } } });
    }),
  );
  app.get(
    "/email_provider_2/api/lists/:audience/profiles",
    serve(state, auth, (account, request) => ({ data: [...audienceOf(account, (request.params as { audience: string }).audience).members.values()].map((m) => ({ type: "profile", id: m.id, attributes: m })) })),
  );
}

/** email_provider_3: basic auth (any user, the API key as password); lists and members by e-mail hash. */
function provider3(app: FastifyInstance, state: ProviderState): void {
  app.get("/email_provider_3/3.0/lists", serve(state, basicPassword, (account) => {
    const lists = [...account.audiences.values()].map((a) => ({ id: a.id, name: a.name, stats: { member_count: a.members.size } }));
    return { lists, total_items: lists.length };
  }));
  app.put(
    "/email_provider_3/3.0/lists/:audience/members/:hash",
    serve(state, basicPassword, (account, request) => {
      const params = request.params as { audience: string; hash: string };
      const audience = audienceOf(account, params.audience);
      const body = bodyOf(
        z.object({ email_address: z.string(), status_if_new: z.enum(["subscribed", "pending"]).optional(), merge_fields: z.record(z.string(), z.string()).optional(), language: z.string().optional() }),
        request.body,
      );
      const email = checkEmail(body.email_address);
      if (subscriberHash(email) !== params.hash.toLowerCase()) throw new Answer(400, { title: "Invalid Resource", detail: "The subscriber hash does not match the e-mail address" });
      const member = state.upsertMember(audience, { email, first_name: body.merge_fields?.FNAME || null, locale: body.language ?? null }, subscriberHash);
      return { id: member.id, email_address: member.email, status: member.status, merge_fields: { FNAME: member.first_name ?? "" }, language: member.locale ?? "", list_id: audience.id };
    }),
  );
  app.get(
    "/email_provider_3/3.0/lists/:audience/members",
    serve(state, basicPassword, (account, request) => {
      const members = [...audienceOf(account, (request.params as { audience: string }).audience).members.values()];
      return { members: members.map((m) => ({ id: m.id, email_address: m.email, status: m.status })), total_items: members.length };
    }),
  );
}

const faultsBody = z.strictObject({
  provider: z.enum(EMAIL_PROVIDERS).optional(),
  refuse_keys: z.boolean().optional(),
  outage: z.boolean().optional(),
  fail_next: z.int().min(0).optional(),
  fail_status: z.int().min(500).max(599).optional(),
  rate_limit_next: z.int().min(0).optional(),
  retry_after_seconds: z.int().min(0).optional(),
  latency_ms: z.int().min(0).max(120_000).optional(),
});

function toFaults(body: z.output<typeof faultsBody>): ProviderFaults {
  const faults: ProviderFaults = {};
  if (body.refuse_keys !== undefined) faults.refuseKeys = body.refuse_keys;
  if (body.outage !== undefined) faults.outage = body.outage;
  if (body.fail_next !== undefined) faults.failNext = body.fail_next;
  if (body.fail_status !== undefined) faults.failStatus = body.fail_status;
  if (body.rate_limit_next !== undefined) faults.rateLimitNext = body.rate_limit_next;
  if (body.retry_after_seconds !== undefined) faults.retryAfterSeconds = body.retry_after_seconds;
  if (body.latency_ms !== undefined) faults.latencyMs = body.latency_ms;
  return faults;
}

/** The development and test interface (no token; the emulator listens on 127.0.0.1). */
function admin(app: FastifyInstance, states: States): void {
  const pick = (provider: EmailProvider | undefined) => (provider ? [states[provider]] : Object.values(states));
  app.post("/admin/faults", async (request, reply) => {
    const parsed = faultsBody.safeParse(request.body ?? {});
    if (!parsed.success) return reply.code(400).send({ error: parsed.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ") });
    for (const state of pick(parsed.data.provider)) state.faults = toFaults(parsed.data);
    return { faults: Object.fromEntries(Object.entries(states).map(([name, s]) => [name, s.faults])) };
  });
  app.delete("/admin/faults", async () => {
    for (const state of Object.values(states)) state.faults = {};
    return { faults: {} };
  });
  app.get("/admin/stats", async () => Object.fromEntries(Object.entries(states).map(([name, s]) => [name, s.stats])));
  app.get("/admin/members", async (request, reply) => {
    const query = z.object({ provider: z.enum(EMAIL_PROVIDERS), audience_id: z.string().min(1) }).safeParse(request.query);
    if (!query.success) return reply.code(400).send({ error: "provider and audience_id are required" });
    for (const account of states[query.data.provider].accounts.values()) {
      const audience = account.audiences.get(query.data.audience_id);
      if (audience) return { members: [...audience.members.values()] };
    }
    return reply.code(404).send({ error: `no audience ${query.data.audience_id}` });
  });
  app.post("/admin/credentials", async (request, reply) => {
    const body = z.strictObject({ provider: z.enum(EMAIL_PROVIDERS), account_id: z.string().optional() }).safeParse(request.body ?? {});
    if (!body.success) return reply.code(400).send({ error: "provider is required" });
    try {
      return reply.code(201).send({ credential: states[body.data.provider].issueCredential(body.data.account_id) });
    } catch (error) {
      return reply.code(404).send({ error: (error as Error).message });
    }
  });
}

export function registerProviderRoutes(app: FastifyInstance, states: States): void {
  provider1(app, states.email_provider_1);
  provider2(app, states.email_provider_2);
  provider3(app, states.email_provider_3);
  admin(app, states);
}
