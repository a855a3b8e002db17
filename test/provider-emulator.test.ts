import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exchangeEmailProvider1Code, subscriberHash } from "../src/providers/adapters.ts";
import { PROVIDER_SEED, type ProviderEmulator, startProviderEmulator } from "../src/providers/emulator/index.ts";
import { EMAIL_PROVIDERS, type EmailProvider, ProviderError, providerAdapter } from "../src/providers/index.ts";

let emulator: ProviderEmulator;
const config = () => ({ PROVIDER_EMULATOR_PORT: emulator.port, PROVIDER_TIMEOUT_MS: 2_000 });
const adapter = (provider: EmailProvider, timeoutMs?: number) => providerAdapter({ ...config(), ...(timeoutMs ? { PROVIDER_TIMEOUT_MS: timeoutMs } : {}) }, provider);

const KEYS: Record<EmailProvider, string> = {
  email_provider_1: PROVIDER_SEED.email_provider_1.token,
  email_provider_2: PROVIDER_SEED.email_provider_2.key,
  email_provider_3: PROVIDER_SEED.email_provider_3.key,
};
const LISTS: Record<EmailProvider, string> = { email_provider_1: "aud_1002", email_provider_2: "LsT002", email_provider_3: "f6a7b8c9d0" };

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${emulator.origin}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  emulator = await startProviderEmulator();
});
afterAll(async () => {
  await emulator.close();
});

describe("provider emulator through the adapters", () => {
  it.each(EMAIL_PROVIDERS)("%s lists the seeded audiences and upserts a member once per address", async (provider) => {
    emulator.setFaults({});
    const audiences = await adapter(provider).listAudiences(KEYS[provider]);
    const seeded = PROVIDER_SEED[provider].accounts[0].audiences.map((a) => ({ id: a.id, name: a.name }));
    expect(audiences).toEqual(seeded);

    const first = await adapter(provider).subscribe(KEYS[provider], LISTS[provider], { email: `Ada.${provider}@Example.com`, first_name: "Ada", locale: "fr" });
    const again = await adapter(provider).subscribe(KEYS[provider], LISTS[provider], { email: `ada.${provider}@example.com`, first_name: null, locale: "fr" });
    expect(again.member_id).toBe(first.member_id);
    const members = emulator.members(provider, LISTS[provider]);
    expect(members).toHaveLength(1);
    expect(members[0]).toMatchObject({ email: `ada.${provider}@example.com`, first_name: "Ada", locale: "fr", writes: 2 });
    if (provider === "email_provider_3") expect(first.member_id).toBe(subscriberHash(`ada.${provider}@example.com`));
  });

  it.each(EMAIL_PROVIDERS)("%s refuses an unknown credential as `refused`, without the credential in the message", async (provider) => {
    const error = await failure(adapter(provider).listAudiences("not-a-valid-secret-123"));
    expect(error).toMatchObject({ kind: "refused", status: 401, provider });
    expect(error.message).not.toContain("not-a-valid-secret-123");
  });

  it("an unknown audience is `rejected` (final), an invalid address too", async () => {
    expect(await failure(adapter("email_provider_3").subscribe(KEYS.email_provider_3, "nope", { email: "a@example.com", first_name: null, locale: "en" }))).toMatchObject({ kind: "rejected", status: 404 });
    expect(await failure(adapter("email_provider_2").subscribe(KEYS.email_provider_2, "LsT001", { email: "not-an-address", first_name: null, locale: "en" }))).toMatchObject({ kind: "rejected", status: 400 });
  });

  it("a second account's key sees only its own audiences", async () => {
    expect(await adapter("email_provider_3").listAudiences(PROVIDER_SEED.email_provider_3.otherKey)).toEqual([{ id: "0011223344", name: "Other store list" }]);
  });

  it("faults: refused keys, an outage, the next N calls failing, 429 with Retry-After, latency past the timeout", async () => {
    emulator.setFaults({ refuseKeys: true }, "email_provider_3");
    expect(await failure(adapter("email_provider_3").listAudiences(KEYS.email_provider_3))).toMatchObject({ kind: "refused" });
    // Other providers are untouched.
    expect(await adapter("email_provider_2").listAudiences(KEYS.email_provider_2)).toHaveLength(2);

    emulator.setFaults({ outage: true, failStatus: 502 }, "email_provider_3");
    expect(await failure(adapter("email_provider_3").listAudiences(KEYS.email_provider_3))).toMatchObject({ kind: "transient", status: 502 });
    expect(await failure(adapter("email_provider_3").listAudiences(KEYS.email_provider_3))).toMatchObject({ kind: "transient", status: 502 });

    emulator.setFaults({ failNext: 2 }, "email_provider_1");
    expect(await failure(adapter("email_provider_1").listAudiences(KEYS.email_provider_1))).toMatchObject({ kind: "transient", status: 503 });
    expect(await failure(adapter("email_provider_1").listAudiences(KEYS.email_provider_1))).toMatchObject({ kind: "transient", status: 503 });
    expect(await adapter("email_provider_1").listAudiences(KEYS.email_provider_1)).toHaveLength(2);

    emulator.setFaults({ rateLimitNext: 1, retryAfterSeconds: 7 }, "email_provider_2");
    const limited = await failure(adapter("email_provider_2").listAudiences(KEYS.email_provider_2));
    expect(limited).toMatchObject({ kind: "transient", status: 429, retryAfterSeconds: 7 });
    expect(await adapter("email_provider_2").listAudiences(KEYS.email_provider_2)).toHaveLength(2);

    emulator.setFaults({ latencyMs: 1_000 }, "email_provider_1");
    const slow = await failure(adapter("email_provider_1", 100).listAudiences(KEYS.email_provider_1));
    expect(slow.kind).toBe("transient");
    expect(slow.message).toContain("no answer within 100 ms");
    emulator.setFaults({});
    expect(emulator.stats("email_provider_3").faulted).toBeGreaterThanOrEqual(3);
  });

  it("an unreachable provider is `transient`", async () => {
    const closed = await startProviderEmulator();
    const port = closed.port;
    await closed.close();
    const error = await failure(providerAdapter({ PROVIDER_EMULATOR_PORT: port, PROVIDER_TIMEOUT_MS: 2_000 }, "email_provider_3").listAudiences(KEYS.email_provider_3));
    expect(error).toMatchObject({ kind: "transient", message: "email_provider_3: unreachable" });
  });

  it("email_provider_1's OAuth code exchange issues a token that opens the demo account; a bad code is refused", async () => {
    const base = { baseUrl: emulator.urls.email_provider_1, timeoutMs: 2_000 };
    const { access_token: token } = await exchangeEmailProvider1Code(base, "code-from-the-consent-screen");
    expect(await adapter("email_provider_1").listAudiences(token)).toHaveLength(2);
    expect(await failure(exchangeEmailProvider1Code(base, "invalid"))).toMatchObject({ kind: "refused" });
  });
});

describe("provider emulator admin interface", () => {
  it("sets and clears faults, lists members and stats, issues credentials", async () => {
    expect(await admin("POST", "/admin/faults", { provider: "email_provider_2", outage: true })).toMatchObject({ status: 200, body: { faults: { email_provider_2: { outage: true }, email_provider_1: {} } } });
    expect(await failure(adapter("email_provider_2").listAudiences(KEYS.email_provider_2))).toMatchObject({ kind: "transient", status: 503 });
    expect(await admin("DELETE", "/admin/faults")).toMatchObject({ status: 200 });
    expect(await adapter("email_provider_2").listAudiences(KEYS.email_provider_2)).toHaveLength(2);
    expect((await admin("POST", "/admin/faults", { outage: "yes" })).status).toBe(400);

    const members = await admin("GET", `/admin/members?provider=email_provider_2&audience_id=${LISTS.email_provider_2}`);
    expect(members.status).toBe(200);
    expect(members.body.members).toEqual([expect.objectContaining({ email: "ada.email_provider_2@example.com" })]);
    expect((await admin("GET", "/admin/members?provider=email_provider_2&audience_id=nope")).status).toBe(404);

    const stats = await admin("GET", "/admin/stats");
    expect(stats.body.email_provider_2).toMatchObject({ subscribes: 2 });

    const issued = await admin("POST", "/admin/credentials", { provider: "email_provider_3" });
    expect(issued.status).toBe(201);
    expect(await adapter("email_provider_3").listAudiences(issued.body.credential as string)).toHaveLength(2);
  });
});
