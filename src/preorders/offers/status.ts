import type { Db } from "../../core/db.ts";
import { type OfferStatus, touchOffer } from "./model.ts";

/**
 * Moves a live offer to `target` (enable: active, disable: disabled), the one way the enable and
 * disable actions and the offer schedule's jobs do it: idempotent (an offer already there is left
 * untouched and answers false), and a change is marked through `touchOffer`, which queues the
 * platform sync in the same transaction. The caller holds the offer's row lock.
 */
export async function setOfferStatus(db: Db, shopId: string, offer: { id: string; status: OfferStatus }, target: OfferStatus): Promise<boolean> {
  if (offer.status === target) return false;
  await db.query("update preorder_offers set status = $3 where shop_id = $1 and id = $2", [shopId, offer.id, target]);
  await touchOffer(db, shopId, offer.id);
  return true;
}
