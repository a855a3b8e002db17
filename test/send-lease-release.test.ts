import { describe, expect, it, vi } from "vitest";
import { claimStage, sendLedgerRows } from "../src/back_in_stock/alerts/ledger.ts";
import type { Channels, ChannelSender, SendResult } from "../src/channels/index.ts";
import { createShopWithKey } from "./helpers/app.ts";
import { seedVariants, variantGid } from "./helpers/bis-seed.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { testPlatformRuntime } from "./helpers/platform.ts";

// A send call ends the leases it took and did not mark (a mark ends its row's lease itself): only
// those. It released the whole chunk after every send, a statement of one key probe per row that
// changed nothing when all were marked (bench:alerts: 101 of them per 20,000 alerts, 2.2 ms each).

const env = useTestEnv({ shop: false });

const accepting: ChannelSender = {
  channel: "email",
  send: async (message): Promise<SendResult> => ({ providerMessageId: message.id, accepted: true }),
  close: async () => undefined,
};
const channels: Channels = { email: accepting, sms: accepting, get: () => accepting, close: async () => undefined };

async function claimed(name: string, n: number): Promise<{ shopId: string; ids: string[] }> {
  const { shopId } = await createShopWithKey(env.pool, name);
  await seedVariants(env.pool, shopId, [{ n: 1, product: 1, available: 5 }]);
  const { rows } = await env.pool.query<{ id: string }>(
    `insert into bis_signups (shop_id, variant_id, channel, contact, consent)
     select $1, $2, 'email', 'release-' || i || '@example.com', true from generate_series(1, $3) i returning id`,
    [shopId, variantGid(1), n],
  );
  return { shopId, ids: (await claimStage(env.pool, shopId, rows.map((r) => r.id), "initial")).map((c) => c.id) };
}

/** The lease releases `run` issues on the pool, with their ids. */
async function releasesDuring(run: () => Promise<unknown>): Promise<string[][]> {
  const spy = vi.spyOn(env.pool, "query");
  try {
    await run();
    return spy.mock.calls
      .filter(([text]) => typeof text === "string" && /^update bis_ledger set lease_pid = null/.test(text.trim()))
      .map(([, values]) => ((values as unknown[] | undefined)?.[0] as string[] | undefined) ?? []);
  } finally {
    spy.mockRestore();
  }
}

const deps = () => ({ pool: env.pool, log: env.log, config: env.config, platform: testPlatformRuntime(), channels });

describe("a send call's lease release", () => {
  it("issues none when every row it leased was marked", async () => {
    const { ids } = await claimed("Release All Marked Shop", 12);
    const releases = await releasesDuring(async () => expect(await sendLedgerRows(deps(), ids, { mode: "job" })).toMatchObject({ sent: 12 }));
    expect(releases).toEqual([]);
    const { rows } = await env.pool.query<{ status: string; lease_pid: number | null }>("select status, lease_pid from bis_ledger where id = any($1::uuid[])", [ids]);
    expect(rows.every((r) => r.status === "sent" && r.lease_pid === null)).toBe(true);
  });

  it("ends the leases of the rows it leased and did not send (an uninstalled shop's), and only theirs", async () => {
    const { shopId, ids } = await claimed("Release Uninstalled Shop", 4);
    const other = await claimed("Release Installed Shop", 3);
    await env.pool.query("update shops set platform_uninstalled_at = now() where id = $1", [shopId]);
    const releases = await releasesDuring(async () =>
      expect(await sendLedgerRows(deps(), [...ids, ...other.ids], { mode: "job" })).toMatchObject({ sent: 3, skipped: 4 }),
    );
    expect(releases.map((r) => [...r].sort())).toEqual([[...ids].sort()]);
    const { rows } = await env.pool.query<{ status: string; lease_pid: number | null }>("select status, lease_pid from bis_ledger where id = any($1::uuid[])", [ids]);
    // Still pending, and free for the sender after a reinstall.
    expect(rows.map((r) => [r.status, r.lease_pid])).toEqual(ids.map(() => ["pending", null]));
  });
});
