/**
 * Where a locale's text comes from, in order: the locale, its language, the shop's default locale,
 * then en. Templates (back in stock, preorders) and storefront translations all fall back this way.
 */
export function fallbackLocales(requested: string, shopDefault: string): string[] {
  return [...new Set([requested, requested.split("-")[0] ?? requested, shopDefault, "en"])];
}
