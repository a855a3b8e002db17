import { describe, expect, it } from "vitest";
import { claimStage, sendLedgerRows } from "../src/back_in_stock/alerts/ledger.ts";
import type { Channels, ChannelSender, OutboundMessage, SendResult } from "../src/channels/index.ts";
import { createShopWithKey } from "./helpers/app.ts";
import { seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { testPlatformRuntime } from "./helpers/platform.ts";

// Senders of the same messages at once (a run's batch, the restock burst, the recovery sweep):
// each message is leased to one live connection, so it goes out once; and the marks land per message.

const env = useTestEnv({ shop: false });

/** E-mail that takes a while, recording each send (in-flight count included). */
function slowChannels(sent: OutboundMessage[], track: { inFlight: number; most: number }): Channels {
  const email: ChannelSender = {
    channel: "email",
    async send(message): Promise<SendResult> {
      track.inFlight += 1;
      track.most = Math.max(track.most, track.inFlight);
      await new Promise((resolve) => setTimeout(resolve, 20));
      track.inFlight -= 1;
      sent.push(message);
      return { providerMessageId: message.id, accepted: true };
    },
    close: async () => undefined,
  };
  return { email, sms: email, get: () => email, close: async () => undefined };
}

async function claimed(name: string, n: number): Promise<string[]> {
  const { shopId } = await createShopWithKey(env.pool, name);
  await seedVariants(env.pool, shopId, [{ n: 1, product: 1, available: 5 }]);
  const { rows } = await env.pool.query<{ id: string }>(
    `insert into bis_signups (shop_id, variant_id, channel, contact, consent)
     select $1, $2, 'email', 'lease-' || i || '@example.com', true from generate_series(1, $3) i returning id`,
    [shopId, variantGid(1), n],
  );
  return (await claimStage(env.pool, shopId, rows.map((r) => r.id), "initial")).map((c) => c.id);
}

describe("the send lease", () => {
  it("two senders of the same rows at once send each message once", async () => {
    const ids = await claimed("Lease Shop", 30);
    const sent: OutboundMessage[] = [];
    const track = { inFlight: 0, most: 0 };
    const deps = { pool: env.pool, log: env.log, config: env.config, platform: testPlatformRuntime(), channels: slowChannels(sent, track) };
    const [a, b] = await Promise.all([sendLedgerRows(deps, ids, { mode: "job" }), sendLedgerRows(deps, ids, { mode: "job" })]);
    expect(sent).toHaveLength(30);
    expect(new Set(sent.map((m) => m.id)).size).toBe(30);
    expect(a.sent + b.sent).toBe(30);
    expect(a.skipped + b.skipped).toBe(30);
    // One sender's sends in flight stay within SEND_CONCURRENCY.
    expect(track.most).toBeLessThanOrEqual(2 * env.config.SEND_CONCURRENCY);
    const { rows } = await env.pool.query<{ status: string; lease_pid: number | null }>("select status, lease_pid from bis_ledger where id = any($1::uuid[])", [ids]);
    expect(rows.every((r) => r.status === "sent" && r.lease_pid === null)).toBe(true);
  });

  it("a lease of a connection that is gone is dead: the row is sent by the next sender", async () => {
    const ids = await claimed("Dead Lease Shop", 3);
    // A sender killed mid-send: its connection leased the rows, then closed.
    const dead = await env.pool.connect();
    await dead.query(
      `update bis_ledger set lease_pid = pg_backend_pid(), lease_backend_start = (select backend_start from pg_stat_activity where pid = pg_backend_pid())
       where id = any($1::uuid[])`,
      [ids],
    );
    const sent: OutboundMessage[] = [];
    const deps = { pool: env.pool, log: env.log, config: env.config, platform: testPlatformRuntime(), channels: slowChannels(sent, { inFlight: 0, most: 0 }) };
    // While its connection lives, the lease holds.
    expect(await sendLedgerRows(deps, ids, { mode: "job" })).toMatchObject({ sent: 0, skipped: 3 });
    const pid = await pidOf(ids[0] ?? "");
    dead.release(true);
    await expect.poll(async () => (await env.pool.query("select 1 from pg_stat_activity where pid = $1", [pid])).rowCount, { timeout: 10_000 }).toBe(0);
    expect(await sendLedgerRows(deps, ids, { mode: "job" })).toMatchObject({ sent: 3, skipped: 0 });
    expect(sent).toHaveLength(3);
  });
});

async function pidOf(ledgerId: string): Promise<number> {
  const { rows } = await env.pool.query<{ lease_pid: number }>("select lease_pid from bis_ledger where id = $1", [ledgerId]);
  return rows[0]?.lease_pid ?? -1;
}
