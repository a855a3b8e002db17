import type { Db } from "../core/db.ts";

/** The shop as every message sees it: its name, storefront address, default locale and whether it sells in several languages. */
export interface ShopInfo {
  id: string;
  name: string;
  url: string;
  defaultLocale: string;
  /** multi_language_enabled (/account/languages): false, every message is in the default locale. */
  multiLanguage: boolean;
  /** product_translations_enabled (/account/languages, only while multiLanguage): name products by the platform's translated titles. */
  productTranslations: boolean;
}

export async function loadShopInfo(db: Db, shopId: string): Promise<ShopInfo> {
  const { rows } = await db.query<{ name: string; default_locale: string; platform_domain: string | null; multi_language_enabled: boolean; product_translations_enabled: boolean }>(
    "select name, default_locale, platform_domain, multi_language_enabled, product_translations_enabled from shops where id = $1",
    [shopId],
  );
  const row = rows[0];
  if (!row) throw new Error(`shop ${shopId} not found`);
  return {
    id: shopId,
    name: row.name,
    url: row.platform_domain ? `https://${row.platform_domain}` : "",
    defaultLocale: row.default_locale,
    multiLanguage: row.multi_language_enabled,
    productTranslations: row.multi_language_enabled && row.product_translations_enabled,
  };
}

/**
 * The locale a message to a customer who asked for `requested` is written in: theirs while the
 * shop sells in several languages (multi_language_enabled), else the shop's default locale.
 */
export function messageLocale(shop: Pick<ShopInfo, "defaultLocale" | "multiLanguage">, requested: string): string {
  return shop.multiLanguage ? requested : shop.defaultLocale;
}
