import { createHash } from "node:crypto";
import type pg from "pg";
import type { PlatformRequester, RequestOptions } from "../../platform/client.ts";
import { JSON_METAFIELD_MAX_BYTES, METAFIELDS_PER_CALL, deleteMetafields, setMetafields } from "../../platform/operations/metafields.ts";
import { chunk } from "../../platform/operations/chunk.ts";
import { PlatformError } from "../../platform/errors.ts";

/**
 * The offer's storefront configuration on the platform (decision 0196): one app-owned json
 * metafield per variant of a live (active) offer, namespace `$app:preorder`, key `offer-<offer id>`,
 * so offers sharing a variant never write over each other. Part of the offer sync (run.ts): written
 * on every change, removed from variants that left the offer and from all of them when the offer
 * is no longer active or is deleted. What was written is recorded (preorder_offer_metafields, a
 * digest per variant), so an unchanged value is not sent again; `force` sends it anyway (a
 * metafield changed or deleted on the platform behind the service's back).
 */

export const STOREFRONT_NAMESPACE = "$app:preorder";
export const storefrontKey = (offerId: string): string => `offer-${offerId}`;

export interface MetafieldSyncResult {
  written: number;
  deleted: number;
}

function digestOf(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/**
 * Makes the offer's metafields match `config` on `variantIds` (null: none anywhere). Deletes
 * first, then writes; each batch of 25 is recorded as soon as the platform has taken it, so a
 * failure part way keeps what was done and a retry goes on from there.
 */
export async function syncOfferMetafields(
  pool: pg.Pool,
  client: PlatformRequester,
  target: {
    shopId: string;
    offerId: string;
    config: Record<string, unknown> | null;
    variantIds: readonly string[];
    /** A variant's own configuration (its overrides, decision 0203) in place of `config`. */
    variantConfigs?: ReadonlyMap<string, Record<string, unknown>>;
    force?: boolean;
  },
  options?: RequestOptions,
): Promise<MetafieldSyncResult> {
  const { shopId, offerId, config } = target;
  const value = config === null ? null : JSON.stringify(config);
  // Each variant's text and its digest: the offer's, or the variant's own where it has overrides.
  const values = new Map<string, { text: string; digest: string }>();
  if (value !== null) {
    const shared = { text: value, digest: digestOf(value) };
    for (const id of target.variantIds) {
      const own = target.variantConfigs?.get(id);
      if (!own) values.set(id, shared);
      else {
        const text = JSON.stringify(own);
        values.set(id, { text, digest: digestOf(text) });
      }
    }
  }
  for (const text of new Set([...values.values()].map((v) => v.text))) {
    if (Buffer.byteLength(text, "utf8") > JSON_METAFIELD_MAX_BYTES) {
      throw new Error(
        `the offer's storefront configuration is ${Buffer.byteLength(text, "utf8")} bytes, above the platform's ${JSON_METAFIELD_MAX_BYTES} for a json metafield: shorten its translations or custom_css`,
      );
    }
  }
  const { rows } = await pool.query<{ owner_id: string; digest: string }>("select owner_id, digest from preorder_offer_metafields where offer_id = $1", [offerId]);
  const recorded = new Map(rows.map((r) => [r.owner_id, r.digest]));
  const wanted = new Set(values.keys());
  const key = storefrontKey(offerId);

  const stale = [...recorded.keys()].filter((id) => !wanted.has(id)).sort();
  // Variants the catalog mirror no longer has: deleted on the platform (their metafields went with
  // them), or only missed by the mirror (theirs are still there). The delete is asked for both, on
  // its own: the platform answers null for what it does not have, and should it refuse these
  // owners, they are forgotten without it (what is known to be on the platform is never skipped).
  const { rows: present } = await pool.query<{ id: string }>("select id from variants where shop_id = $1 and id = any($2::text[])", [shopId, stale]);
  const inMirror = new Set(present.map((r) => r.id));
  const deleteStale = async (ids: readonly string[], refusalForgets: boolean) => {
    for (const part of chunk(ids, METAFIELDS_PER_CALL)) {
      try {
        await deleteMetafields(
          client,
          part.map((ownerId) => ({ ownerId, namespace: STOREFRONT_NAMESPACE, key })),
          options,
        );
      } catch (error) {
        if (!(refusalForgets && error instanceof PlatformError && error.kind === "user_errors")) throw error;
      }
      await pool.query("delete from preorder_offer_metafields where offer_id = $1 and owner_id = any($2::text[])", [offerId, part]);
    }
  };
  await deleteStale(stale.filter((id) => !inMirror.has(id)), true);
  await deleteStale(stale.filter((id) => inMirror.has(id)), false);

  const toWrite = [...wanted].filter((id) => target.force === true || recorded.get(id) !== values.get(id)?.digest);
  for (const part of chunk(toWrite, METAFIELDS_PER_CALL)) {
    await setMetafields(
      client,
      part.map((ownerId) => ({ ownerId, namespace: STOREFRONT_NAMESPACE, key, type: "json", value: values.get(ownerId)?.text ?? "" })),
      options,
    );
    await pool.query(
      `insert into preorder_offer_metafields (offer_id, shop_id, owner_id, digest)
       select $1, $2, owner_id, digest from unnest($3::text[], $4::text[]) as w(owner_id, digest)
       on conflict (offer_id, owner_id) do update set digest = excluded.digest, written_at = now()`,
      [offerId, shopId, part, part.map((id) => values.get(id)?.digest ?? "")],
    );
  }
  return { written: toWrite.length, deleted: stale.length };
}
