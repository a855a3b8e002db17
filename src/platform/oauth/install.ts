import type pg from "pg";
import { enqueueCatalogSync } from "../../catalog/schedule.ts";
import { withTransaction } from "../../core/db.ts";
import { createShop } from "../../db/api-keys.ts";
import { enqueueShopConfigSync } from "../../storefront/enqueue.ts";
import { ADMIN_API_VERSION } from "../api-version.ts";
import type { PlatformRuntime } from "../runtime.ts";
import { adminOrigin } from "./shop-origins.ts";

export interface InstalledStore {
  /** The store's myshopify domain, as the library checked it. */
  domain: string;
  /** The offline Admin API token the store issued. */
  accessToken: string;
}

export class InstallConflict extends Error {}

/**
 * Connects the shop row an install belongs to (decision 0220): the one the signed install link
 * bound (`boundShopId`), else the one already connected to that store (a reinstall), else a new
 * shop named after the store, as a public app's install creates its merchant. A store is one
 * shop's: a link binding it to a shop while another shop holds it is refused. The token is sealed
 * by `platform.connect` before it reaches the database; the shop's storefront configuration is queued,
 * and a full catalog sync when the store is new to the shop or back after an uninstall. Answers the shop id.
 */
export async function installStore(pool: pg.Pool, platform: PlatformRuntime, store: InstalledStore, boundShopId?: string): Promise<{ shopId: string; created: boolean }> {
  const graphqlUrl = `${adminOrigin(store.domain)}/admin/api/${ADMIN_API_VERSION}/graphql.json`;
  const installed = await withTransaction(pool, async (db) => {
    // One install of a store at a time: two callbacks at once must not create two shops.
    await db.query("select pg_advisory_xact_lock(hashtext('platform_install:' || $1))", [store.domain]);
    const { rows } = await db.query<{ id: string; uninstalled: boolean }>(
      "select id, platform_uninstalled_at is not null as uninstalled from shops where platform_domain = $1",
      [store.domain],
    );
    const holder = rows[0]?.id;
    // A reinstall after app/uninstalled: what changed on the store meanwhile reached no webhook.
    const wasUninstalled = rows[0]?.uninstalled === true;
    let shopId: string;
    let created = false;
    if (boundShopId !== undefined) {
      if (holder !== undefined && holder !== boundShopId) throw new InstallConflict("this store is connected to another shop");
      const bound = await db.query("select 1 from shops where id = $1 for update", [boundShopId]);
      if ((bound.rowCount ?? 0) === 0) throw new InstallConflict("the install link names a shop that does not exist");
      shopId = boundShopId;
    } else if (holder !== undefined) {
      shopId = holder;
    } else {
      shopId = await createShop(db, store.domain);
      created = true;
    }
    await platform.connect(db, shopId, { domain: store.domain, graphqlUrl, accessToken: store.accessToken });
    await enqueueShopConfigSync(db, shopId);
    return { shopId, created, fullSync: holder !== shopId || wasUninstalled };
  });
  // A reinstall of an installed app keeps its mirror (the incremental syncs go on); a store new to
  // the shop, or back after an uninstall, is mirrored whole.
  if (installed.fullSync) await enqueueCatalogSync(pool, installed.shopId, "full");
  return { shopId: installed.shopId, created: installed.created };
}
