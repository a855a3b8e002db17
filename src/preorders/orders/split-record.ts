import { type Shipping, shippingGroup } from "../offers/groups/plan-groups.ts";

/**
 * What an order's split of its preorder items is and how far it got (preorder_orders.order_split,
 * sql/111, decision 0204). Written at ingest (pending, or handed_off to the split-order app) and
 * after each platform write of the split job, so a retry continues where the last attempt stopped.
 */

export type SplitType = "fulfillments" | "orders" | "app";

export interface SplitOrderRecord {
  /** The offer id, or `<offer id>:<variant id>` with per_variant. */
  key: string;
  /** The split name: the original order's name, the offer's order_suffix, and its number with sequential_number. */
  name: string;
  line_item_ids: string[];
  variant_ids: string[];
  draft_order_id: string | null;
  /**
   * When an attempt asked the platform for the draft (before it heard its id). Set with no
   * draft_order_id, the next attempt looks for that draft before asking for another.
   */
  draft_requested_at?: string | null;
  platform_order_id: string | null;
  platform_name: string | null;
}

export interface OrderSplitRecord {
  type: SplitType;
  state: "pending" | "done" | "handed_off";
  offer_ids: string[];
  fulfillment_orders: string[];
  orders: SplitOrderRecord[];
  edited: boolean;
  requested_at: string;
  done_at: string | null;
}

/** The tag that asks the split-order app to split the order (split_order_app on: the service does not split). */
export const SPLIT_REQUEST_TAG = "preorder-split-requested";

/** The custom attribute a split-off order carries (the webhook's note_attributes): the original order's platform id. */
export const SPLIT_OF_ATTRIBUTE = "_preorder_split_of";

export type SplitSettings = Shipping["fulfillment"]["split"];

/** The offer's split settings when it splits (type set), else null. */
export function offerSplit(settings: Record<string, unknown>): (SplitSettings & { type: "fulfillments" | "orders" }) | null {
  const { split } = shippingGroup.schema.parse(settings.shipping ?? {}).fulfillment;
  return split.type === null ? null : { ...split, type: split.type };
}
