import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROVIDER_SEED, type ProviderEmulator, startProviderEmulator } from "../src/providers/emulator/index.ts";
import { connectEmailProvider1 } from "../src/providers/oauth.ts";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { seedVariants } from "./helpers/bis-seed.ts";
import { type TestEnv, startTestEnv } from "./helpers/fixture.ts";
import { waitFor } from "./helpers/wait.ts";
import { runNow } from "./helpers/queue.ts";

let emulator: ProviderEmulator;
let env: TestEnv;
/** Every log line of the app and the worker, at debug and without redaction: no key may be in one. */
const logLines: string[] = [];
const log = pino({ level: "debug" }, { write: (line: string) => void logLines.push(line) });

const LISTS = { email_provider_1: "aud_1001", email_provider_2: "LsT002", email_provider_3: "f6a7b8c9d0" } as const;
type Target = keyof typeof LISTS | "commerce_platform";

interface SyncEntry {
  status: string;
  attempts: number;
  last_error: string | null;
  synced_at: string | null;
}
interface Signup {
  id: string;
  status: string;
  sync: Partial<Record<Target, SyncEntry>>;
}

beforeAll(async () => {
  emulator = await startProviderEmulator();
  env = await startTestEnv({ config: { PROVIDER_EMULATOR_PORT: String(emulator.port), PROVIDER_TIMEOUT_MS: "2000" }, emulator: {}, connect: true, log });
  await seedVariants(env.pool, env.shopId, [
    { n: 501, product: 50 },
    { n: 502, product: 50 },
  ]);
  await connectEmailProvider1({ db: env.pool, config: env.config, secrets: env.platform.secrets }, env.shopId, { accessToken: PROVIDER_SEED.email_provider_1.token }, LISTS.email_provider_1);
  const answer = await invoke(env.app, "PATCH", "/account/integrations", {
    key: env.key,
    body: {
      email_provider_1: { sync_enabled: true },
      email_provider_2: { api_key: PROVIDER_SEED.email_provider_2.key, list_id: LISTS.email_provider_2, sync_enabled: true },
      email_provider_3: { api_key: PROVIDER_SEED.email_provider_3.key, list_id: LISTS.email_provider_3, sync_enabled: true },
      commerce_platform: { sync_enabled: true },
      sync_customers_tag: "restock-waitlist",
    },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  expect(answer.body).toMatchObject({ signup_sync_targets: ["email_provider_1", "email_provider_2", "email_provider_3", "commerce_platform"] });
});
afterAll(async () => {
  await env.close();
  await emulator.close();
});

async function createSignup(body: Record<string, unknown>, key = env.key): Promise<Signup> {
  const answer = await invoke(env.app, "POST", "/back_in_stock/signups", { key, body });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return answer.body as Signup;
}

async function syncRow(signupId: string, target: Target): Promise<SyncEntry & { provider_member_id: string | null } | undefined> {
  const { rows } = await env.pool.query<SyncEntry & { provider_member_id: string | null }>(
    "select status, attempts, last_error, synced_at, provider_member_id from signup_syncs where signup_id = $1 and target = $2",
    [signupId, target],
  );
  return rows[0];
}

async function waitForStatus(signupId: string, target: Target, status: string, timeoutMs = 20_000): Promise<SyncEntry> {
  return waitFor(`${target} sync of ${signupId} to be ${status}`, async () => {
    const row = await syncRow(signupId, target);
    return row?.status === status ? row : undefined;
  }, timeoutMs);
}

async function jobsOf(signupId: string): Promise<{ key: string; task_identifier: string; max_attempts: number; payload: unknown }[]> {
  const { rows } = await env.pool.query<{ key: string; task_identifier: string; max_attempts: number; payload: unknown }>(
    `select j.key, j.task_identifier, j.max_attempts, p.payload from graphile_worker.jobs j join graphile_worker._private_jobs p on p.id = j.id
     where j.key like '%' || $1 || '%' order by j.key`,
    [signupId],
  );
  return rows;
}

const KEYS = [PROVIDER_SEED.email_provider_1.token, PROVIDER_SEED.email_provider_2.key, PROVIDER_SEED.email_provider_3.key];

describe("signup sync to the e-mail providers and platform customers", () => {
  it("queues one job per target in the signup's transaction, with no key in any payload, and syncs each once", async () => {
    const customer = env.emulator.store.customers[0];
    if (!customer?.email) throw new Error("the platform emulator has no customer with an e-mail");
    const signup = await createSignup({ variant_id: 501, channel: "email", email: "Grace@Example.com", first_name: "Grace", customer_id: customer.id });
    const pending = { status: "pending", attempts: 0, last_error: null, synced_at: null };
    expect(signup.sync).toEqual({ email_provider_1: pending, email_provider_2: pending, email_provider_3: pending, commerce_platform: pending });

    const jobs = await jobsOf(signup.id);
    expect(jobs.map((j) => [j.key, j.task_identifier, j.max_attempts])).toEqual([
      [`bis_tag_customer:${signup.id}`, "bis_tag_customer", 25],
      [`provider_sync_signup:${signup.id}:email_provider_1`, "provider_sync_signup", 25],
      [`provider_sync_signup:${signup.id}:email_provider_2`, "provider_sync_signup", 25],
      [`provider_sync_signup:${signup.id}:email_provider_3`, "provider_sync_signup", 25],
    ]);
    expect(jobs[1]?.payload).toEqual({ signup_id: signup.id, target: "email_provider_1" });
    for (const key of KEYS) expect(JSON.stringify(jobs.map((j) => j.payload))).not.toContain(key);

    await env.startWorker();
    for (const target of ["email_provider_1", "email_provider_2", "email_provider_3", "commerce_platform"] as const) await waitForStatus(signup.id, target, "synced");
    for (const provider of ["email_provider_1", "email_provider_2", "email_provider_3"] as const) {
      expect(emulator.members(provider, LISTS[provider])).toEqual([expect.objectContaining({ email: "grace@example.com", first_name: "Grace", writes: 1 })]);
    }
    expect(customer.tags).toContain("restock-waitlist");

    const read = await invoke(env.app, "GET", `/back_in_stock/signups/${signup.id}`, { key: env.key });
    expect(read.status).toBe(200);
    const sync = (read.body as Signup).sync;
    for (const target of ["email_provider_1", "email_provider_2", "email_provider_3", "commerce_platform"] as const) {
      expect(sync[target]).toMatchObject({ status: "synced", attempts: 1, last_error: null, synced_at: expect.any(String) as unknown });
    }
    // email_provider_2's key is verified by its first successful use.
    expect((await invoke(env.app, "GET", "/account/integrations", { key: env.key })).body).toMatchObject({ email_provider_2: { verified: true } });

    const list = await invoke(env.app, "GET", "/back_in_stock/signups?variant_id=501", { key: env.key });
    expect(list.status).toBe(200);
    expect((list.body as { signups: Signup[] }).signups).toEqual([expect.objectContaining({ id: signup.id, sync })]);

    // A repeat is the same signup: nothing is sent again.
    const repeat = await createSignup({ variant_id: 501, channel: "email", email: "grace@example.com" });
    expect(repeat.id).toBe(signup.id);
    expect(repeat.sync.email_provider_3).toMatchObject({ status: "synced", attempts: 1 });
    await waitFor("the sync jobs to complete", async () => ((await jobsOf(signup.id)).length === 0 ? true : undefined));
  });

  it("a provider outage loses nothing: the job fails and retries with backoff, and the member arrives exactly once when it is back", async () => {
    await env.startWorker();
    emulator.setFaults({ outage: true }, "email_provider_3");
    const before = emulator.stats("email_provider_3");
    let signup: Signup;
    try {
      signup = await createSignup({ variant_id: 502, channel: "email", email: "outage@example.com" });
      // Two failed attempts: the first, then graphile-worker's retry about e (2.7) seconds later; the job waits for its next one.
      const jobKey = `provider_sync_signup:${signup.id}:email_provider_3`;
      const job = await waitFor("two failed attempts", async () => {
        if (emulator.stats("email_provider_3").faulted - before.faulted < 2) return undefined;
        const { rows } = await env.pool.query<{ attempts: number; max_attempts: number; last_error: string | null }>(
          "select attempts, max_attempts, last_error from graphile_worker.jobs where key = $1 and locked_at is null and attempts >= 2",
          [jobKey],
        );
        return rows[0];
      }, 30_000);
      expect(job).toMatchObject({ max_attempts: 25, last_error: expect.stringContaining("server error 503") as unknown });
      const failing = await syncRow(signup.id, "email_provider_3");
      expect(failing).toMatchObject({ status: "pending", attempts: job.attempts, synced_at: null, last_error: "email_provider_3: server error 503: Service unavailable (injected 503)" });
      expect(emulator.members("email_provider_3", LISTS.email_provider_3).filter((m) => m.email === "outage@example.com")).toEqual([]);
      // The other providers were not held up by this one.
      await waitForStatus(signup.id, "email_provider_2", "synced");
    } finally {
      emulator.setFaults({});
    }
    // The provider is back: the next retry (brought forward rather than waiting out the backoff) delivers it.
    await runNow(env.pool, `provider_sync_signup:${signup.id}:email_provider_3`);
    const synced = await waitForStatus(signup.id, "email_provider_3", "synced");
    expect(synced.last_error).toBeNull();
    expect(synced.attempts).toBeGreaterThanOrEqual(3);
    expect(emulator.members("email_provider_3", LISTS.email_provider_3).filter((m) => m.email === "outage@example.com")).toEqual([
      expect.objectContaining({ writes: 1 }),
    ]);
    // The job completes (graphile-worker removes it) and is not run again.
    await waitFor("the sync jobs to complete", async () => ((await jobsOf(signup.id)).length === 0 ? true : undefined));
    expect(emulator.members("email_provider_3", LISTS.email_provider_3).filter((m) => m.email === "outage@example.com")).toEqual([expect.objectContaining({ writes: 1 })]);
  });

  it("a refused key fails the sync at once (no retry) and clears verified", async () => {
    await env.startWorker();
    emulator.setFaults({ refuseKeys: true }, "email_provider_2");
    try {
      const signup = await createSignup({ variant_id: 502, channel: "email", email: "refused@example.com" });
      const failed = await waitForStatus(signup.id, "email_provider_2", "failed");
      expect(failed).toMatchObject({ attempts: 1, last_error: "email_provider_2: credentials refused (401: Your API key or access token is not valid)" });
      await waitFor("the job to be gone", async () => ((await jobsOf(signup.id)).some((j) => j.key.endsWith("email_provider_2")) ? undefined : true));
      expect((await invoke(env.app, "GET", "/account/integrations", { key: env.key })).body).toMatchObject({ email_provider_2: { connected: true, verified: false } });
      await waitForStatus(signup.id, "email_provider_3", "synced");
    } finally {
      emulator.setFaults({});
    }
  });

  it("a target turned off before its job runs is skipped; a text-message signup goes to no e-mail provider", async () => {
    await env.stopWorker();
    const signup = await createSignup({ variant_id: 501, channel: "email", email: "late@example.com" });
    expect(Object.keys(signup.sync).sort()).toEqual(["email_provider_1", "email_provider_2", "email_provider_3"]);
    expect((await invoke(env.app, "PATCH", "/account/integrations", { key: env.key, body: { email_provider_1: { sync_enabled: false } } })).status).toBe(202);
    const sms = await createSignup({ variant_id: 501, channel: "sms", phone: "+15550109999" });
    expect(sms.sync).toEqual({});
    await env.startWorker();
    const skipped = await waitForStatus(signup.id, "email_provider_1", "skipped");
    expect(skipped.last_error).toBe("sync to email_provider_1 was turned off or disconnected before this signup was sent");
    expect(emulator.members("email_provider_1", LISTS.email_provider_1).map((m) => m.email)).not.toContain("late@example.com");
    await waitForStatus(signup.id, "email_provider_3", "synced");
  });

  it("a refused signup (422) leaves no job and no sync row", async () => {
    const { rows: before } = await env.pool.query<{ n: number }>("select count(*)::int as n from signup_syncs");
    const answer = await invoke(env.app, "POST", "/back_in_stock/signups", { key: env.key, body: { variant_id: 501, channel: "email", phone: "+15550101234" } });
    expect(answer).toMatchObject({ status: 422, body: { errors: ["email is required", "phone is not allowed with channel email"] } });
    const { rows: after } = await env.pool.query<{ n: number }>("select count(*)::int as n from signup_syncs");
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it("another shop's signup is not found, and its own signups sync nowhere until it connects a provider", async () => {
    const other = await createShopWithKey(env.pool, "Other shop");
    await seedVariants(env.pool, other.shopId, [{ n: 601, product: 60 }]);
    const own = await createSignup({ variant_id: 601, channel: "email", email: "other@example.com" }, other.apiKey);
    expect(own.sync).toEqual({});
    expect(await invoke(env.app, "GET", `/back_in_stock/signups/${own.id}`, { key: env.key })).toMatchObject({ status: 404, body: { errors: [`Back-in-stock signup not found: ${own.id}`] } });
  });

  it("no key is logged, even unredacted at debug level", async () => {
    // The worker logged its jobs, and the failures above (outage, refused key) were logged.
    expect(logLines.some((line) => line.includes("signup sync to an e-mail provider failed"))).toBe(true);
    for (const key of KEYS) expect(logLines.filter((line) => line.includes(key))).toEqual([]);
  });

  it("no key is stored in plain text: not in sync rows, job rows or connections", async () => {
    const { rows } = await env.pool.query<{ t: string }>(
      `select coalesce((select string_agg(s::text, ' ') from signup_syncs s), '')
         || coalesce((select string_agg(c::text || encode(coalesce(c.credential, ''), 'escape'), ' ') from integration_connections c), '')
         || coalesce((select string_agg(p.payload::text || coalesce(p.last_error, ''), ' ') from graphile_worker._private_jobs p), '') as t`,
    );
    for (const key of KEYS) expect(rows[0]!.t).not.toContain(key);
  });
});
