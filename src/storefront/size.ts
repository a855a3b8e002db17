import type { Db } from "../core/db.ts";
import { type Issue, fieldIssue } from "../core/errors.ts";
import { JSON_METAFIELD_MAX_BYTES } from "../platform/operations/metafields.ts";
import { buildShopStorefrontConfig } from "./build.ts";

/**
 * The shop's storefront configuration (shop-config.ts) must fit the json metafield it is written
 * to: a change that would make it larger is refused where it is made, naming `field` (the
 * request's), instead of accepted and then failing at every write of the metafield, which
 * blocked every later storefront change of the shop (a configuration of 376,642 bytes answered
 * 202, issue 31). Measured as the writer sends it (write.ts), in the change's transaction.
 */
export async function shopStorefrontSize(db: Db, shopId: string, field: string): Promise<Issue[]> {
  const bytes = Buffer.byteLength(JSON.stringify(await buildShopStorefrontConfig(db, shopId)), "utf8");
  if (bytes <= JSON_METAFIELD_MAX_BYTES) return [];
  return [
    fieldIssue(
      field,
      `makes the shop's storefront configuration ${bytes} bytes; the store platform keeps at most ${JSON_METAFIELD_MAX_BYTES} bytes in a json metafield: shorten the storefront translations`,
    ),
  ];
}
