import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { declareTask, enqueue } from "../src/core/tasks.ts";
import { PROVIDER_SEED, type ProviderEmulator, startProviderEmulator } from "../src/providers/emulator/index.ts";
import { api } from "./helpers/app.ts";
import { seedVariants } from "./helpers/bis-seed.ts";
import { type TestEnv, startTestEnv } from "./helpers/fixture.ts";
import { waitFor } from "./helpers/wait.ts";

// The overview's failing-providers panel shows a provider that is failing now: before, a provider
// answering 503 left its syncs pending (retried for days) and the panel said "No failing provider".

const TOKEN = "ops-failing-providers-token-c41d";
let emulator: ProviderEmulator;
let env: TestEnv;

interface FailingProvider {
  target: string;
  failed: number;
  retrying: number;
  last_error: string | null;
}

beforeAll(async () => {
  emulator = await startProviderEmulator();
  env = await startTestEnv({ config: { OPERATOR_TOKEN: TOKEN, PROVIDER_EMULATOR_PORT: String(emulator.port), PROVIDER_TIMEOUT_MS: "2000" } });
  await seedVariants(env.pool, env.shopId, [{ n: 601, product: 60 }]);
  const answer = await api(env.app, "PATCH", "/account/integrations", {
    key: env.key,
    body: { email_provider_3: { api_key: PROVIDER_SEED.email_provider_3.key, list_id: "f6a7b8c9d0", sync_enabled: true } },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
});
afterAll(async () => {
  await env.close();
  await emulator.close();
});

async function overview(): Promise<{ json: { failing_providers: FailingProvider[] }; html: string }> {
  const login = await fetch(`${env.app.origin}/ops/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: TOKEN }).toString(),
    redirect: "manual",
  });
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const json = (await (await fetch(`${env.app.origin}/ops/api/overview`, { headers: { cookie } })).json()) as { failing_providers: FailingProvider[] };
  const html = await (await fetch(`${env.app.origin}/ops`, { headers: { cookie } })).text();
  return { json, html };
}

describe("ops console: failing providers", () => {
  it("shows a provider answering 503 while its signup syncs are retried, with the error", async () => {
    emulator.setFaults({ outage: true }, "email_provider_3");
    try {
      await env.startWorker();
      const signup = await api(env.app, "POST", "/back_in_stock/signups", { key: env.key, body: { variant_id: 601, channel: "email", email: "outage-panel@example.com" } });
      expect(signup.status, JSON.stringify(signup.body)).toBe(202);
      const signupId = (signup.body as { id: string }).id;
      await waitFor("the sync to fail once and wait for its retry", async () => {
        const { rows } = await env.pool.query<{ status: string; last_error: string | null }>("select status, last_error from signup_syncs where signup_id = $1 and target = 'email_provider_3'", [signupId]);
        return rows[0]?.status === "pending" && rows[0].last_error ? true : undefined;
      });
      const { json, html } = await overview();
      expect(json.failing_providers.find((p) => p.target === "email_provider_3")).toEqual(
        expect.objectContaining({ failed: 0, retrying: 1, last_error: "email_provider_3: server error 503: Service unavailable (injected 503)" }),
      );
      expect(html).toContain('<tr data-task="email_provider_3"><td>email_provider_3</td><td>0</td><td>1</td><td>email_provider_3: server error 503');
      expect(html).not.toContain("No failing provider.");
    } finally {
      emulator.setFaults({});
      await env.stopWorker();
    }
  });

  it("shows platform calls failing (a queue row retrying after a platform error) under commerce_platform", async () => {
    await enqueue(env.pool, declareTask({ name: "ops_test_platform_call", payload: z.object({}) }), {});
    await env.pool.query(
      `update graphile_worker._private_jobs set attempts = 2, last_error = 'Platform productVariants failed after 3 attempts: HTTP 502', run_at = now() + interval '1 hour'
       where task_id = (select id from graphile_worker._private_tasks where identifier = 'ops_test_platform_call')`,
    );
    const { json } = await overview();
    expect(json.failing_providers.find((p) => p.target === "commerce_platform")).toEqual(
      expect.objectContaining({ failed: 0, retrying: 1, last_error: "Platform productVariants failed after 3 attempts: HTTP 502" }),
    );
  });
});
