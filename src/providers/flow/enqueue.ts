import { z } from "zod";
import type { Db } from "../../core/db.ts";
import { declareTask, enqueue } from "../../core/tasks.ts";
import { FLOW_TRIGGERS, type FlowTrigger } from "./triggers.ts";

/**
 * The account's flow_triggers switch at work: an event in the chosen triggers (/account/integrations
 * flow_triggers.enabled and .triggers) queues one job that sends it to the platform's automation
 * (flowTriggerReceive, jobs/flow-trigger.ts), retried with graphile-worker's backoff. Nothing is
 * queued while the switch is off or the event is not chosen, and the job checks again when it runs.
 * The payload carries ids only (the platform's reference fields customer_id, product_id, order_id
 * and the app's own ids): a workflow looks the rest up, and no contact sits in a job payload.
 */

export const flowTriggerTask = declareTask({
  name: "flow_trigger_send",
  payload: z.object({
    shop_id: z.uuid(),
    trigger: z.enum(FLOW_TRIGGERS),
    /** What the event is about (a signup, a ledger row, an order): one job per event and key. */
    key: z.string().min(1).max(200),
    payload: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  }),
});

/** Attempts of one send before graphile-worker gives up (its backoff: e^attempt seconds). */
export const FLOW_TRIGGER_MAX_ATTEMPTS = 10;

export interface FlowEvent {
  shopId: string;
  trigger: FlowTrigger;
  key: string;
  payload: Record<string, string | number | boolean | null>;
}

/** Of these shops, those whose flow_triggers are on with `trigger` among the chosen ones. */
export async function shopsSending(db: Db, shopIds: readonly string[], trigger: FlowTrigger): Promise<Set<string>> {
  const { rows } = await db.query<{ shop_id: string }>(
    `select shop_id from account_integrations
     where shop_id = any($1::uuid[]) and settings->'flow_triggers'->>'enabled' = 'true' and settings->'flow_triggers'->'triggers' ? $2`,
    [[...new Set(shopIds)], trigger],
  );
  return new Set(rows.map((r) => r.shop_id));
}

/**
 * The switches as one sender (a run of alert sends) found them, read once per shop and trigger:
 * the alert marks of a burst ask for them at every write. Kept only for the sender's run; a
 * switch turned off meanwhile is caught by the job, which checks again.
 */
export class FlowSwitches {
  readonly #known = new Map<string, boolean>();

  async sending(db: Db, shopIds: readonly string[], trigger: FlowTrigger): Promise<Set<string>> {
    const key = (shopId: string) => `${shopId}\t${trigger}`;
    const unknown = [...new Set(shopIds)].filter((id) => !this.#known.has(key(id)));
    if (unknown.length > 0) {
      const found = await shopsSending(db, unknown, trigger);
      for (const id of unknown) this.#known.set(key(id), found.has(id));
    }
    return new Set(shopIds.filter((id) => this.#known.get(key(id)) === true));
  }
}

/**
 * Queues the events whose shop sends their trigger, on `db` (the event's own transaction where it
 * has one: a rolled-back event sends nothing). `switches`: a sender's cache of the switches.
 * Answers how many were queued.
 */
export async function enqueueFlowTriggers(db: Db, events: readonly FlowEvent[], switches?: FlowSwitches): Promise<number> {
  let queued = 0;
  const byTrigger = new Map<FlowTrigger, FlowEvent[]>();
  for (const event of events) byTrigger.set(event.trigger, [...(byTrigger.get(event.trigger) ?? []), event]);
  for (const [trigger, list] of byTrigger) {
    const shopIds = list.map((e) => e.shopId);
    const sending = switches ? await switches.sending(db, shopIds, trigger) : await shopsSending(db, shopIds, trigger);
    for (const event of list) {
      if (!sending.has(event.shopId)) continue;
      await enqueue(
        db,
        flowTriggerTask,
        { shop_id: event.shopId, trigger, key: event.key, payload: event.payload },
        { jobKey: `${flowTriggerTask.name}:${trigger}:${event.key}`, jobKeyMode: "preserve_run_at", maxAttempts: FLOW_TRIGGER_MAX_ATTEMPTS },
      );
      queued++;
    }
  }
  return queued;
}

/** A platform gid's number, as Flow's reference fields take it (`gid://shopify/Order/5` → 5); null without one. */
export function legacyId(value: string | null | undefined): number | null {
  const match = value ? /\/(\d+)(?:\?.*)?$/.exec(value) : null;
  const id = match?.[1] ? Number(match[1]) : NaN;
  return Number.isSafeInteger(id) ? id : null;
}
