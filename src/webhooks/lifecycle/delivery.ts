import type { Db } from "../../core/db.ts";
import type { PreparingDb } from "../../core/rate-limit.ts";

/** What a topic's handler gets besides its payload: the recorded delivery it applies. */
export interface RecordedDelivery {
  id: number;
  /** X-Shopify-Triggered-At when it was recorded, else when it was received. */
  triggeredAt: Date;
}

export type TopicHandler = (db: Db & PreparingDb, shopId: string, payload: unknown, delivery: RecordedDelivery) => Promise<void>;
