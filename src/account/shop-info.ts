import type { Db } from "../core/db.ts";

/** The shop as every message sees it: its name, storefront address and default locale. */
export interface ShopInfo {
  id: string;
  name: string;
  url: string;
  defaultLocale: string;
}

export async function loadShopInfo(db: Db, shopId: string): Promise<ShopInfo> {
  const { rows } = await db.query<{ name: string; default_locale: string; platform_domain: string | null }>(
    "select name, default_locale, platform_domain from shops where id = $1",
    [shopId],
  );
  const row = rows[0];
  if (!row) throw new Error(`shop ${shopId} not found`);
  return { id: shopId, name: row.name, url: row.platform_domain ? `https://${row.platform_domain}` : "", defaultLocale: row.default_locale };
}
