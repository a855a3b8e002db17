import type { Db } from "../core/db.ts";
import type { Log } from "../logger.ts";
import { getTranslations } from "../platform/operations/app.ts";
import type { PlatformRuntime } from "../platform/runtime.ts";

/**
 * Product titles in a message's locale, as the store platform translated them
 * (/account/languages product_translations_enabled, which needs read_translations): back-in-stock
 * alerts and preorder notifications name the product in the customer's language. Cached in
 * product_title_translations for TITLE_CACHE_SECONDS (a translation rarely changes, and a restock
 * alerts thousands of customers of one product); a failed read (access revoked, platform down)
 * is not cached and the message falls back to the product's own title.
 */

/** How long a translated title (or its absence) is used before the platform is asked again. */
export const TITLE_CACHE_SECONDS = 3600;

export interface TitleRequest {
  productId: string;
  locale: string;
}

export const titleKey = (productId: string, locale: string): string => `${productId}\t${locale}`;

/** Translated titles by titleKey; a product and locale without one is left out. */
export type TranslatedTitles = Map<string, string>;

export interface TitleTranslator {
  titles(db: Db, shopId: string, requests: readonly TitleRequest[]): Promise<TranslatedTitles>;
}

/** Whether a message in `locale` needs a translation: the catalog's own titles are in the shop's default locale. */
export function needsTranslation(locale: string, defaultLocale: string): boolean {
  const language = (l: string) => l.toLowerCase().split("-")[0];
  return language(locale) !== language(defaultLocale);
}

/** The translator that reads the platform (through the shop's client), behind the cache. */
export function platformTitles(platform: Pick<PlatformRuntime, "clientFor">, log: Pick<Log, "warn">): TitleTranslator {
  return {
    async titles(db, shopId, requests) {
      const found: TranslatedTitles = new Map();
      const wanted = [...new Map(requests.map((r) => [titleKey(r.productId, r.locale), r])).values()];
      if (wanted.length === 0) return found;
      const { rows } = await db.query<{ product_id: string; locale: string; title: string | null }>(
        `select product_id, locale, title from product_title_translations
         where shop_id = $1 and (product_id, locale) in (select * from unnest($2::text[], $3::text[]))
           and fetched_at > now() - make_interval(secs => $4)`,
        [shopId, wanted.map((r) => r.productId), wanted.map((r) => r.locale), TITLE_CACHE_SECONDS],
      );
      const cached = new Set<string>();
      for (const row of rows) {
        cached.add(titleKey(row.product_id, row.locale));
        if (row.title) found.set(titleKey(row.product_id, row.locale), row.title);
      }
      const missing = wanted.filter((r) => !cached.has(titleKey(r.productId, r.locale)));
      if (missing.length === 0) return found;
      let client;
      try {
        client = await platform.clientFor(db, shopId);
      } catch (error) {
        log.warn({ err: error, shopId }, "translated product titles unavailable: the shop is not connected");
        return found;
      }
      for (const request of missing) {
        let title: string | null;
        try {
          title = (await getTranslations(client, request.productId, request.locale))?.get("title") ?? null;
        } catch (error) {
          log.warn({ err: error, shopId, productId: request.productId, locale: request.locale }, "translated product title could not be read; using the title");
          continue;
        }
        await db.query(
          `insert into product_title_translations (shop_id, product_id, locale, title, fetched_at) values ($1, $2, $3, $4, now())
           on conflict (shop_id, product_id, locale) do update set title = excluded.title, fetched_at = excluded.fetched_at`,
          [shopId, request.productId, request.locale, title],
        );
        if (title) found.set(titleKey(request.productId, request.locale), title);
      }
      return found;
    },
  };
}
