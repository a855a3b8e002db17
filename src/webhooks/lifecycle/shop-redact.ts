import type { Db } from "../../core/db.ts";
import type { RecordedDelivery } from "./delivery.ts";
import { shopRedactPayload } from "./payloads.ts";

/**
 * Every table that holds a shop's rows: those with a foreign key to shops(id). Read from the
 * catalog at each run, so a table added later is deleted too without a change here.
 */
const SHOP_TABLES = `select distinct c.conrelid::regclass::text as name from pg_constraint c
  where c.contype = 'f' and c.confrelid = 'shops'::regclass and c.conrelid <> 'shops'::regclass order by 1`;

/**
 * shop/redact (48 hours after an uninstall): every row of the shop is deleted (decision 0223),
 * its API keys with them; the shop row itself stays as a tombstone: named "Redacted shop", with
 * no token or scopes, marked uninstalled and redacted, and keeping its domain, so that the
 * platform's redeliveries of this delivery are recognised (the delivery's own record is kept: its
 * payload names the shop only) and a later install of the same store starts from nothing. The
 * shop's queued jobs find nothing left to work on. Running it again deletes nothing more.
 */
export async function applyShopRedact(db: Db, shopId: string, payload: unknown, delivery: RecordedDelivery): Promise<void> {
  shopRedactPayload.parse(payload);
  const { rows: tables } = await db.query<{ name: string }>(SHOP_TABLES);
  for (const { name } of tables) {
    // The names come from the catalog (regclass text: quoted where needed), never from input.
    if (name === "webhook_deliveries") await db.query(`delete from webhook_deliveries where shop_id = $1 and id <> $2`, [shopId, delivery.id]);
    else await db.query(`delete from ${name} where shop_id = $1`, [shopId]);
  }
  await db.query(
    `update shops set name = 'Redacted shop', platform_access_token = null, platform_graphql_url = null, granted_scopes = '{}',
       platform_uninstalled_at = coalesce(platform_uninstalled_at, now()), platform_redacted_at = coalesce(platform_redacted_at, now()),
       updated_at = now()
     where id = $1`,
    [shopId],
  );
}
