import { beforeAll, describe, expect, it } from "vitest";
import { invoke } from "./helpers/app.ts";
import { seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { runCli } from "./helpers/cli.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { opsLogin, opsRequest } from "./helpers/ops.ts";
import { insertOffer, orderPayload, placeOrder, useDomain } from "./helpers/preorder-shop.ts";
import { runNow } from "./helpers/queue.ts";
import { waitFor } from "./helpers/wait.ts";

/**
 * Issue 31: "The merchant's notification log counts attempts, not messages: 3 failed alerts
 * retried twice became 7 `failed` rows with integer ids that match nothing in the console or the
 * CLI." Both areas' merchant-facing logs (GET /back_in_stock/notifications, GET
 * /preorders/notifications) list each message once, with its current status (sent, failed with
 * its reason, or pending while it is being sent again or retried, with its attempts), under the
 * id the console's failed messages (/ops/messages, /ops/api/messages) and the CLI's `messages
 * failed` show for it, so an id found in one finds the message in the others (decision 0249).
 * Sends go over real SMTP to the test sink: 550 refuses for good, 451 once is a retry.
 */

const WORKER = { pollInterval: 50 };
const TOKEN = "notification-log-messages-operator-token-31";
const DOMAIN = "notification-log-messages.platform.local";
const env = useTestEnv({ shop: "Notification Log Shop", smtp: true, dataDir: true, config: { OPERATOR_TOKEN: TOKEN }, worker: WORKER });

interface LogEntry {
  id: string;
  message_id: string | null;
  status: string;
  error: string | null;
  attempts: number | null;
  recipient: string | null;
}

interface LogPage {
  notifications: LogEntry[];
  total: number;
}

interface ListedMessage {
  id: string;
  area: string;
  recipient: string;
  attempts: number;
  error: string | null;
}

const BIS_REFUSED = ["log-alert-1@example.com", "log-alert-2@example.com", "log-alert-3@example.com"];
const PREORDER_REFUSED = ["log-buyer-1@example.com", "log-buyer-2@example.com", "log-buyer-3@example.com"];

const cli = (...args: string[]) => runCli(env.db.url, args);

async function log(path: string): Promise<LogPage> {
  const answer = await invoke(env.app, "GET", path, { key: env.key });
  expect(answer.status).toBe(200);
  return answer.body as LogPage;
}

/** The CLI's failed messages of the shop and area, as JSON. */
async function cliFailed(area: string): Promise<ListedMessage[]> {
  const result = await cli("messages", "failed", "--shop", env.shopId, "--area", area, "--json");
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as ListedMessage[];
}

/** The console's failed messages of the shop and area: its JSON, and the row ids of its page. */
async function consoleFailed(area: string): Promise<{ json: ListedMessage[]; rows: string[] }> {
  const { cookie } = await opsLogin(env.app.origin, TOKEN, "/ops/messages");
  const api = await opsRequest(env.app.origin, `/ops/api/messages?shop=${env.shopId}&area=${area}`, { cookie });
  expect(api.status).toBe(200);
  const page = await opsRequest(env.app.origin, `/ops/messages?shop=${env.shopId}&area=${area}`, { cookie });
  expect(page.status).toBe(200);
  const rows = [...page.text.matchAll(/<tr data-message-id="([^"]+)" data-area="([^"]+)">/g)].filter((m) => m[2] === area).map((m) => m[1] ?? "");
  return { json: (JSON.parse(api.text) as { messages: ListedMessage[] }).messages, rows };
}

/**
 * Retries the shop's failed messages of an area through the CLI with the worker stopped, and runs
 * `meanwhile` (the log read while they wait to be sent) before the worker starts again.
 */
async function retryWithWorkerStopped(area: string, expected: Record<string, number>, meanwhile: () => Promise<void>): Promise<void> {
  await env.stopWorker();
  try {
    const result = await cli("messages", "retry", "--all", "--shop", env.shopId, "--area", area);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ back_in_stock: 0, preorders: 0, ...expected, shop_id: env.shopId });
    await meanwhile();
  } finally {
    await env.startWorker(WORKER);
  }
}

const sorted = (ids: readonly string[]) => [...ids].sort();
const ledgerRow = async (id: string) =>
  (await env.app.pool.query<{ status: string; attempts: number }>("select status, attempts from bis_ledger where id = $1", [id])).rows[0];
const ledgerAttempts = async (id: string) => (await ledgerRow(id))?.attempts;
const ledgerStatus = async (id: string) => (await ledgerRow(id))?.status;

/**
 * Waits, in the ledger itself (the log is read once it holds: polling the API would spend the
 * key's rate limit), until every one of the messages has this status after this many attempts.
 */
async function settled(table: "bis_ledger" | "preorder_notifications", ids: readonly string[], status: string, attempts: number): Promise<void> {
  await waitFor(`${ids.length} message(s) of ${table} to read ${status} after ${attempts} attempt(s)`, async () => {
    const { rows } = await env.app.pool.query<{ n: number }>(`select count(*)::int as n from ${table} where id = any($1::uuid[]) and status = $2 and attempts = $3`, [
      ids,
      status,
      attempts,
    ]);
    return rows[0]?.n === ids.length ? true : undefined;
  });
}

beforeAll(async () => {
  await useDomain(env.app.pool, env.shopId, DOMAIN);
  for (const address of [...BIS_REFUSED, ...PREORDER_REFUSED]) env.sink.reject.add(address);
});

describe("the back-in-stock notifications log lists messages, not attempts", () => {
  let signupIds: string[] = [];
  let messageIds: string[] = [];

  const bisLog = () => log("/back_in_stock/notifications?variant_id=3101&per_page=100");

  async function settledFailed(attempts: number): Promise<LogPage> {
    await settled("bis_ledger", messageIds, "failed", attempts);
    return bisLog();
  }

  it("3 alerts refused (550) and retried twice: 3 failed entries, with their reason and attempts, under the console's and the CLI's ids", async () => {
    await seedVariants(env.app.pool, env.shopId, [{ n: 3101, product: 3101, available: 0 }]);
    const { rows } = await env.app.pool.query<{ id: string }>(
      `insert into bis_signups (shop_id, variant_id, channel, contact, consent)
       select $1, $2, 'email', c, true from unnest($3::text[]) c returning id`,
      [env.shopId, variantGid(3101), BIS_REFUSED],
    );
    signupIds = rows.map((r) => r.id);
    const notified: string[] = [];
    for (const id of signupIds) {
      const answer = await invoke(env.app, "POST", `/back_in_stock/signups/${id}/notify`, { key: env.key });
      expect(answer.status).toBe(202);
      notified.push((answer.body as { message_id: string }).message_id);
    }
    messageIds = sorted(notified);
    await settledFailed(1);

    for (const round of [2, 3]) {
      await retryWithWorkerStopped("back_in_stock", { back_in_stock: 3 }, async () => {
        // Being sent again: still one entry per message, under its id, pending with the last reason.
        const waiting = await bisLog();
        expect(waiting.total).toBe(3);
        expect(sorted(waiting.notifications.map((n) => n.id))).toEqual(messageIds);
        for (const n of waiting.notifications) {
          expect(n).toMatchObject({ status: "pending", message_id: n.id, attempts: round - 1 });
          expect(n.error).toMatch(/550/);
        }
        expect((await log("/back_in_stock/notifications?variant_id=3101&status=pending")).total).toBe(3);
        expect((await log("/back_in_stock/notifications?variant_id=3101&status=failed")).total).toBe(0);
      });
      await settledFailed(round);
    }

    // Three messages, three attempts each: 3 entries, not 7 (nor 9).
    const page = await settledFailed(3);
    expect(page.total).toBe(3);
    expect(sorted(page.notifications.map((n) => n.id))).toEqual(messageIds);
    for (const n of page.notifications) {
      expect(n.message_id).toBe(n.id);
      expect(n.error).toMatch(/550/);
    }
    expect(sorted(page.notifications.map((n) => n.recipient ?? ""))).toEqual(sorted(BIS_REFUSED));
    expect((await log("/back_in_stock/notifications?variant_id=3101&status=failed")).total).toBe(3);
    for (const id of signupIds) expect((await log(`/back_in_stock/notifications?signup_id=${id}`)).total).toBe(1);
    expect(env.sink.messages.filter((m) => BIS_REFUSED.includes(m.to))).toEqual([]);

    // The CLI and the console list the same messages under the same ids, with the same reason and attempts.
    const listed = await cliFailed("back_in_stock");
    expect(sorted(listed.map((m) => m.id))).toEqual(messageIds);
    const table = await cli("messages", "failed", "--shop", env.shopId, "--area", "back_in_stock");
    for (const id of messageIds) expect(table.stdout).toContain(id);
    const shown = await consoleFailed("back_in_stock");
    expect(sorted(shown.json.map((m) => m.id))).toEqual(messageIds);
    expect(sorted(shown.rows)).toEqual(messageIds);
    for (const m of [...listed, ...shown.json]) {
      const entry = page.notifications.find((n) => n.id === m.id);
      expect(entry).toBeDefined();
      expect(m).toMatchObject({ area: "back_in_stock", recipient: entry?.recipient, attempts: entry?.attempts, error: entry?.error });
    }

    // And back: a console id opens the log's entry.
    for (const id of shown.rows) {
      const one = await invoke(env.app, "GET", `/back_in_stock/notifications/${id}`, { key: env.key });
      expect(one).toMatchObject({ status: 200, body: { id, message_id: id, status: "failed", attempts: 3 } });
    }
  });

  it("a log id is a message id the CLI resends; sent, the message is still its one entry", async () => {
    const [first] = messageIds;
    if (!first) throw new Error("the first test claims the messages");
    const entry = (await bisLog()).notifications.find((n) => n.id === first);
    if (!entry?.recipient) throw new Error("no entry for the message");
    env.sink.reject.delete(entry.recipient);
    const retried = await cli("messages", "retry", "--id", entry.id);
    expect(retried.code).toBe(0);
    expect(JSON.parse(retried.stdout)).toMatchObject({ back_in_stock: 1, preorders: 0 });
    await settled("bis_ledger", [first], "sent", 4);
    const sent = await bisLog();
    expect(sent.total).toBe(3);
    expect(sent.notifications.find((n) => n.id === first)).toMatchObject({ message_id: first, error: null, attempts: 4 });
    expect(env.sink.to(entry.recipient)).toHaveLength(1);
    expect(env.sink.to(entry.recipient)[0]?.messageId).toContain(first);
    expect(sorted((await cliFailed("back_in_stock")).map((m) => m.id))).toEqual(messageIds.filter((id) => id !== first));
  });

  it("an alert retried after a transient failure (451) is one pending entry with its attempts and error, then the same entry sent", async () => {
    const address = "log-alert-transient@example.com";
    // 451 until the test lets it through: pending with its error, whatever the backoff did meanwhile.
    env.sink.tempFail.set(address, 1_000);
    const { rows } = await env.app.pool.query<{ id: string }>(
      "insert into bis_signups (shop_id, variant_id, channel, contact, consent) values ($1, $2, 'email', $3, true) returning id",
      [env.shopId, variantGid(3101), address],
    );
    const signupId = rows[0]?.id ?? "";
    const answer = await invoke(env.app, "POST", `/back_in_stock/signups/${signupId}/notify`, { key: env.key });
    expect(answer.status).toBe(202);
    const messageId = (answer.body as { message_id: string }).message_id;
    await waitFor("the alert's first attempt to fail (451)", async () => {
      const row = await ledgerRow(messageId);
      return row?.status === "pending" && row.attempts >= 1 ? true : undefined;
    });
    await env.stopWorker();
    try {
      const attempts = await ledgerAttempts(messageId);
      const retrying = await log(`/back_in_stock/notifications?signup_id=${signupId}`);
      expect(retrying.total).toBe(1);
      expect(retrying.notifications[0]).toMatchObject({ id: messageId, message_id: messageId, status: "pending", attempts });
      expect(retrying.notifications[0]?.error).toMatch(/451/);
      const one = await invoke(env.app, "GET", `/back_in_stock/notifications/${messageId}`, { key: env.key });
      expect(one).toMatchObject({ status: 200, body: { id: messageId, status: "pending", attempts, sent_at: null } });
    } finally {
      env.sink.tempFail.delete(address);
      await env.startWorker(WORKER);
    }

    await runNow(env.app.pool, `bis_send:${messageId}`);
    await waitFor("the retried alert to be sent", async () => ((await ledgerStatus(messageId)) === "sent" ? true : undefined));
    const sent = await log(`/back_in_stock/notifications?signup_id=${signupId}`);
    expect(sent.total).toBe(1);
    expect(sent.notifications[0]).toMatchObject({ id: messageId, message_id: messageId, status: "sent", error: null, attempts: await ledgerAttempts(messageId) });
    expect(env.sink.to(address)).toHaveLength(1);
  });
});

describe("the preorder notifications log lists messages, not attempts", () => {
  let offerId = "";
  let messageIds: string[] = [];

  const preorderLog = () => log(`/preorders/notifications?offer_id=${offerId}&per_page=100`);

  async function settledFailed(attempts: number): Promise<LogPage> {
    await settled("preorder_notifications", messageIds, "failed", attempts);
    return preorderLog();
  }

  it("3 confirmations refused (550) and retried twice: 3 failed entries, with their reason and attempts, under the console's and the CLI's ids", async () => {
    const offer = await insertOffer(env.app.pool, env.shopId);
    offerId = offer.id;
    for (const email of PREORDER_REFUSED) await placeOrder(env, DOMAIN, "orders/create", orderPayload({ plan: offer.plan, email }));
    const { rows } = await env.app.pool.query<{ id: string }>("select id from preorder_notifications where offer_id = $1 and stage = 'confirmation'", [offerId]);
    messageIds = sorted(rows.map((r) => r.id));
    expect(messageIds).toHaveLength(3);
    await settledFailed(1);

    for (const round of [2, 3]) {
      await retryWithWorkerStopped("preorders", { preorders: 3 }, async () => {
        const waiting = await preorderLog();
        expect(waiting.total).toBe(3);
        expect(sorted(waiting.notifications.map((n) => n.id))).toEqual(messageIds);
        for (const n of waiting.notifications) {
          expect(n).toMatchObject({ status: "pending", attempts: round - 1 });
          expect(n.error).toMatch(/550/);
        }
        expect((await log(`/preorders/notifications?offer_id=${offerId}&status=pending`)).total).toBe(3);
        expect((await log(`/preorders/notifications?offer_id=${offerId}&status=failed`)).total).toBe(0);
      });
      await settledFailed(round);
    }

    const page = await settledFailed(3);
    expect(page.total).toBe(3);
    expect(sorted(page.notifications.map((n) => n.id))).toEqual(messageIds);
    for (const n of page.notifications) expect(n.error).toMatch(/550/);
    expect(sorted(page.notifications.map((n) => n.recipient ?? ""))).toEqual(sorted(PREORDER_REFUSED));
    expect((await log(`/preorders/notifications?offer_id=${offerId}&status=failed`)).total).toBe(3);

    const listed = await cliFailed("preorders");
    expect(sorted(listed.map((m) => m.id))).toEqual(messageIds);
    const shown = await consoleFailed("preorders");
    expect(sorted(shown.json.map((m) => m.id))).toEqual(messageIds);
    expect(sorted(shown.rows)).toEqual(messageIds);
    for (const m of [...listed, ...shown.json]) {
      const entry = page.notifications.find((n) => n.id === m.id);
      expect(entry).toBeDefined();
      expect(m).toMatchObject({ area: "preorders", recipient: entry?.recipient, attempts: entry?.attempts, error: entry?.error });
    }
    for (const id of shown.rows) {
      const one = await invoke(env.app, "GET", `/preorders/notifications/${id}`, { key: env.key });
      expect(one).toMatchObject({ status: 200, body: { id, status: "failed", attempts: 3 } });
    }
  });
});
