import type pg from "pg";
import type { Log } from "../../logger.ts";
import type { PlatformRequester } from "../../platform/client.ts";
import {
  type SellingPlanGroup,
  addVariantsToSellingPlanGroup,
  createSellingPlanGroup,
  deleteSellingPlanGroup,
  getSellingPlanGroup,
  removeVariantsFromSellingPlanGroup,
  sellingPlanGroupVariantIds,
  updateSellingPlanGroup,
} from "../../platform/operations/selling-plans.ts";
import type { PlatformRuntime } from "../../platform/runtime.ts";
import { inventoryGroup } from "../offers/groups/inventory.ts";
import { OFFER_COLUMNS, type OfferRow, OfferState } from "../offers/model.ts";
import { advancedGroup, paymentsGroup, shippingGroup } from "../offers/groups/plan-groups.ts";
import { loadVariantOverrides } from "../offers/variant-overrides.ts";
import { relinkOfferOrderLines } from "../orders/offer-lines.ts";
import { enqueueOfferSync } from "./enqueue.ts";
import { type InventoryPolicySyncResult, syncOfferInventoryPolicies } from "./inventory-policy.ts";
import { type MetafieldSyncResult, syncOfferMetafields } from "./metafields.ts";
import { storefrontConfig, withVariantOverride, withoutOfferShipping } from "./storefront-config.ts";
import {
  type OfferForPlatform,
  type PaymentOptionType,
  paymentOptionOfPlan,
  planOptions,
  sellingPlanGroupInputFromOffer,
  sellingPlanGroupUpdateFromOffer,
} from "./selling-plan-input.ts";

/**
 * The sync of one offer to the platform (task `preorders_offer_sync`, coalesced per offer; see
 * enqueue.ts). It reads the offer as it is now, makes the platform match it (its selling plan group,
 * and its storefront configuration metafields: metafields.ts), and records the
 * revision it synced: `synced` when that is still the offer's revision, else it stays `pending`
 * (the change that moved it has queued the next sync). A failure is recorded (`failed`, the
 * message in `sync_last_error`) and rethrown, so graphile-worker retries it with its backoff.
 */

/** How long a sync waiting for a resolution of the offer's variants waits at most before it runs anyway. */
const DEFERRED_SYNC_DELAY_SECONDS = 60;

interface OfferSyncDeps {
  pool: pg.Pool;
  platform: PlatformRuntime;
  log: Log;
  /** The deferral's delay instead of DEFERRED_SYNC_DELAY_SECONDS (TaskDeps.offerSyncDeferSeconds: tests). */
  offerSyncDeferSeconds?: number | undefined;
}

type OfferSyncOutcome =
  | { outcome: "gone" }
  | { outcome: "deferred"; reason: string }
  | { outcome: "not_connected" }
  | {
      outcome: "created" | "updated";
      group_id: string;
      added: number;
      removed: number;
      metafields: MetafieldSyncResult;
      inventory_policies: InventoryPolicySyncResult;
      revision: number;
      current: boolean;
    }
  | { outcome: "detached" | "disabled"; group_id: string | null; metafields: MetafieldSyncResult; inventory_policies: InventoryPolicySyncResult; revision: number; current: boolean }
  | { outcome: "draft"; revision: number; current: boolean };

interface SyncRow extends OfferRow {
  revision: string;
}

/** The offer's groups the platform cares about, parsed with their defaults. */
function offerForPlatform(row: OfferRow): OfferForPlatform & { use_platform_selling_plan: boolean } {
  const offer = new OfferState(row);
  return {
    id: row.id,
    name: row.name,
    internal_name: row.internal_name,
    payments: offer.get(paymentsGroup),
    shipping: offer.get(shippingGroup),
    inventory: offer.get(inventoryGroup),
    use_platform_selling_plan: offer.get(advancedGroup).use_platform_selling_plan,
  };
}

/**
 * The offer's variants as the platform should hold them: its rows that the mirror still knows
 * (a variant the platform deleted cannot be added, and would fail the whole chunk).
 */
async function wantedVariantIds(pool: pg.Pool, shopId: string, offerId: string): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>(
    `select o.variant_id as id from preorder_offer_variants o
     join variants v on v.shop_id = o.shop_id and v.id = o.variant_id
     where o.offer_id = $1 and o.shop_id = $2
     order by o.legacy_id`,
    [offerId, shopId],
  );
  return rows.map((r) => r.id);
}

/** Adds what is missing from the group and removes what it should not hold; answers both counts. */
async function reconcileVariants(
  client: PlatformRequester,
  group: SellingPlanGroup,
  wanted: readonly string[],
  signal: AbortSignal | undefined,
): Promise<{ added: number; removed: number }> {
  const current = new Set<string>();
  if (group.productVariantsCount > 0) {
    for await (const page of sellingPlanGroupVariantIds(client, group.id, 250, { ...(signal ? { signal } : {}) })) {
      for (const id of page) current.add(id);
    }
  }
  const wantedSet = new Set(wanted);
  const toAdd = wanted.filter((id) => !current.has(id));
  const toRemove = [...current].filter((id) => !wantedSet.has(id));
  const options = signal ? { signal } : {};
  if (toRemove.length > 0) await removeVariantsFromSellingPlanGroup(client, group.id, toRemove, options);
  if (toAdd.length > 0) await addVariantsToSellingPlanGroup(client, group.id, toAdd, options);
  return { added: toAdd.length, removed: toRemove.length };
}

/** One of the offer's plans on the platform: the payment option it charges by and its place (decision 0212). */
export interface OfferPlan {
  id: string;
  option: PaymentOptionType;
  position: number;
}

/**
 * The group's plans that stand for the offer's enabled options, in the offer's order (the first
 * plan of each option's type; selling-plan-input.ts matches them the same way).
 */
function offerPlansOf(group: SellingPlanGroup, offer: OfferForPlatform): OfferPlan[] {
  const plans: OfferPlan[] = [];
  for (const option of planOptions(offer.payments)) {
    const plan = group.sellingPlans.nodes.find((p) => paymentOptionOfPlan(p) === option.type);
    if (plan) plans.push({ id: plan.id, option: option.type, position: plans.length });
  }
  return plans;
}

/**
 * Records the offer's plans (preorder_offer_selling_plans, sql/117): those given are its plans now;
 * any other it had is marked removed and kept, so orders placed on it keep matching the offer.
 */
async function recordPlans(pool: pg.Pool, shopId: string, offerId: string, plans: readonly OfferPlan[]): Promise<void> {
  await pool.query(
    `update preorder_offer_selling_plans set removed_at = now(), position = null
     where offer_id = $1 and removed_at is null and not (platform_selling_plan_id = any($2::text[]))`,
    [offerId, plans.map((p) => p.id)],
  );
  if (plans.length === 0) return;
  await pool.query(
    `insert into preorder_offer_selling_plans (shop_id, platform_selling_plan_id, offer_id, payment_option, position)
     select $1, r.id, $2, r.option, r.position from jsonb_to_recordset($3::jsonb) as r(id text, option text, position integer)
     on conflict (shop_id, platform_selling_plan_id) do update set offer_id = excluded.offer_id, payment_option = excluded.payment_option,
       position = excluded.position, removed_at = null`,
    [shopId, offerId, JSON.stringify(plans)],
  );
}

/**
 * Records what was synced; `synced` only if no change came in meanwhile. When one did, queues the
 * next sync itself: the change's own add_job can race this job's claim (graphile-worker skips
 * replacing a job that became locked after the change's snapshot), and then nothing else would.
 * Answers whether it was current.
 */
async function recordSynced(
  pool: pg.Pool,
  shopId: string,
  offerId: string,
  revision: string,
  groupId: string | null,
  plans: readonly OfferPlan[] | "unchanged",
  unchangedPlanId: string | null = null,
): Promise<boolean> {
  if (plans !== "unchanged") await recordPlans(pool, shopId, offerId, plans);
  const planId = plans === "unchanged" ? unchangedPlanId : (plans[0]?.id ?? null);
  // The plan ids and the lines they link first: once the offer reads synced, its orders are linked.
  await pool.query("update preorder_offers set platform_selling_plan_group_id = $2, platform_selling_plan_id = $3 where id = $1", [offerId, groupId, planId]);
  if (planId) await relinkOfferOrderLines(pool, shopId, offerId);
  const { rows } = await pool.query<{ current: boolean }>(
    `update preorder_offers
     set synced_revision = $2, synced_at = now(),
         sync_last_error = null, sync_status = case when revision = $2 then 'synced' else 'pending' end
     where id = $1
     returning revision = $2 as current`,
    [offerId, revision],
  );
  const current = rows[0]?.current ?? false;
  if (!current) await enqueueOfferSync(pool, shopId, offerId);
  return current;
}

/**
 * Stores a group's ids as soon as the platform has created it: a later failure must not orphan it.
 * `event` (shown as `sync.last_event`) says why it was created, when that needs telling.
 */
async function recordGroup(pool: pg.Pool, shopId: string, offerId: string, group: SellingPlanGroup, plans: readonly OfferPlan[], event: string | null): Promise<void> {
  await recordPlans(pool, shopId, offerId, plans);
  await pool.query(
    "update preorder_offers set platform_selling_plan_group_id = $2, platform_selling_plan_id = $3, sync_last_event = coalesce($4, sync_last_event) where id = $1",
    [offerId, group.id, plans[0]?.id ?? null, event],
  );
  await relinkOfferOrderLines(pool, shopId, offerId);
}

async function recordSyncFailure(pool: pg.Pool, offerId: string, error: unknown): Promise<void> {
  const message = (error instanceof Error ? error.message : String(error)).slice(0, 2000);
  await pool.query("update preorder_offers set sync_status = 'failed', sync_last_error = $2 where id = $1", [offerId, message]);
}

/**
 * A resolution of the offer's variants is queued or running: its end marks the offer changed (or
 * queues the sync), which syncs it. A resolution clears its job id in the transaction that writes
 * the variants, so one that has done its work no longer counts, even before its job is marked
 * completed.
 */
async function resolutionUnderWay(pool: pg.Pool, offerId: string): Promise<boolean> {
  const { rowCount } = await pool.query(
    `select 1 from preorder_offer_resolutions r join jobs j on j.id = r.job_id
     where r.offer_id = $1 and j.status in ('queued', 'running')`,
    [offerId],
  );
  return (rowCount ?? 0) > 0;
}

async function isConnected(pool: pg.Pool, shopId: string): Promise<boolean> {
  const { rows } = await pool.query<{ connected: boolean }>(
    "select platform_graphql_url is not null and platform_access_token is not null as connected from shops where id = $1",
    [shopId],
  );
  return rows[0]?.connected ?? false;
}

/**
 * The offer's storefront configuration metafields (metafields.ts): on its variants while it is
 * active, nowhere once it is disabled or deleted. `wanted`: its variants, when already read.
 */
async function syncMetafields(
  pool: pg.Pool,
  client: PlatformRequester,
  row: OfferRow,
  plans: readonly OfferPlan[],
  wanted: readonly string[] | undefined,
  signal: AbortSignal | undefined,
): Promise<MetafieldSyncResult> {
  const live = row.deleted_at === null && row.status === "active";
  const variantIds = live ? (wanted ?? (await wantedVariantIds(pool, row.shop_id, row.id))) : [];
  const state = new OfferState(row);
  const config = live ? storefrontConfig(state, row, plans) : null;
  // Variants with their own shipping text or max count get their own value (decision 0203).
  const variantConfigs = new Map<string, Record<string, unknown>>();
  if (config !== null) {
    // The offer's delivery for only the products given their own shipping text: the others show no shipping details (decision 0208).
    const base = state.get(shippingGroup).delivery.applies_to_all_products ? config : withoutOfferShipping(config);
    const overrides = await loadVariantOverrides(pool, row.id);
    for (const [id, override] of overrides) variantConfigs.set(id, withVariantOverride(override.shipping_text === null ? base : config, override));
    if (base !== config) for (const id of variantIds) if (!overrides.has(id)) variantConfigs.set(id, base);
  }
  return syncOfferMetafields(pool, client, { shopId: row.shop_id, offerId: row.id, config, variantIds, variantConfigs }, signal ? { signal } : {});
}

/**
 * The offer's continue_selling on the platform (inventory-policy.ts): CONTINUE on its variants
 * while it is active with the setting on, the policies from before everywhere else. Independent of
 * the selling plan group: an offer off the platform's selling plan still sells past zero.
 */
async function syncPolicies(
  pool: pg.Pool,
  client: PlatformRequester,
  row: OfferRow,
  wanted: readonly string[] | undefined,
  signal: AbortSignal | undefined,
): Promise<InventoryPolicySyncResult> {
  const live = row.deleted_at === null && row.status === "active" && new OfferState(row).get(inventoryGroup).continue_selling.enabled;
  const variantIds = live ? (wanted ?? (await wantedVariantIds(pool, row.shop_id, row.id))) : [];
  return syncOfferInventoryPolicies(pool, client, { shopId: row.shop_id, offerId: row.id, variantIds }, signal ? { signal } : {});
}

export async function syncOffer(deps: OfferSyncDeps, shopId: string, offerId: string, signal?: AbortSignal): Promise<OfferSyncOutcome> {
  const { pool } = deps;
  const { rows } = await pool.query<SyncRow>(`select ${OFFER_COLUMNS}, revision::text from preorder_offers where shop_id = $1 and id = $2`, [shopId, offerId]);
  const row = rows[0];
  if (!row) return { outcome: "gone" };
  const options = signal ? { signal } : {};
  try {
    const offer = offerForPlatform(row);
    const detach = row.deleted_at !== null || !offer.use_platform_selling_plan;
    if (!detach && row.status === "draft") {
      // A draft is the merchant's work in progress: nothing goes to the platform (so no connection
      // is needed) until it is enabled, which queues the sync that creates its group.
      const current = await recordSynced(pool, shopId, offerId, row.revision, row.platform_selling_plan_group_id, "unchanged", row.platform_selling_plan_id);
      return { outcome: "draft", revision: Number(row.revision), current };
    }
    if (!(await isConnected(pool, shopId))) {
      // Not a passing fault: retrying cannot help until the shop is connected (then any change syncs it).
      await recordSyncFailure(pool, offerId, new Error("the shop is not connected to the store platform"));
      return { outcome: "not_connected" };
    }
    if (!detach && (await resolutionUnderWay(pool, offerId))) {
      // The resolution's end queues the sync at once; this later one only covers a resolution that never ends.
      await enqueueOfferSync(pool, shopId, offerId, deps.offerSyncDeferSeconds ?? DEFERRED_SYNC_DELAY_SECONDS);
      return { outcome: "deferred", reason: "a resolution of the offer's variants is under way" };
    }
    const client = await deps.platform.clientFor(pool, shopId);
    const existing = row.platform_selling_plan_group_id ? await getSellingPlanGroup(client, row.platform_selling_plan_group_id, options) : null;

    if (detach) {
      // Detached (or deleted): the offer has no group on the platform.
      if (existing) await deleteSellingPlanGroup(client, existing.id, options);
      const metafields = await syncMetafields(pool, client, row, [], undefined, signal);
      const policies = await syncPolicies(pool, client, row, undefined, signal);
      const current = await recordSynced(pool, shopId, offerId, row.revision, null, []);
      return { outcome: "detached", group_id: existing?.id ?? null, metafields, inventory_policies: policies, revision: Number(row.revision), current };
    }

    // A disabled offer keeps its group (orders placed on its plan still match it) but holds no
    // variants there, so no new purchase can be made on its plan (decision 0210).
    const disabled = row.status !== "active";
    const wanted = disabled ? [] : await wantedVariantIds(pool, shopId, offerId);
    if (!existing && disabled) {
      // Nothing to take off the platform: a disabled offer needs no group of its own.
      const metafields = await syncMetafields(pool, client, row, [], [], signal);
      const policies = await syncPolicies(pool, client, row, [], signal);
      const current = await recordSynced(pool, shopId, offerId, row.revision, row.platform_selling_plan_group_id, "unchanged", row.platform_selling_plan_id);
      return { outcome: "disabled", group_id: null, metafields, inventory_policies: policies, revision: Number(row.revision), current };
    }
    if (!existing) {
      // None yet, or the platform answers not-found for the stored one (deleted there, or a store
      // or emulator that lost it): create it with its variants, and say so when it was lost.
      const group = await createSellingPlanGroup(client, sellingPlanGroupInputFromOffer(offer), wanted, options);
      const missing = row.platform_selling_plan_group_id;
      let event: string | null = null;
      if (missing) {
        event = `selling plan group ${missing} was missing on the platform; re-created as ${group.id}`;
        deps.log.warn({ shop_id: shopId, offer_id: offerId, missing_group_id: missing, group_id: group.id }, event);
      }
      const plans = offerPlansOf(group, offer);
      await recordGroup(pool, shopId, offerId, group, plans, event);
      const metafields = await syncMetafields(pool, client, row, plans, wanted, signal);
      const policies = await syncPolicies(pool, client, row, wanted, signal);
      const current = await recordSynced(pool, shopId, offerId, row.revision, group.id, plans);
      return { outcome: "created", group_id: group.id, added: wanted.length, removed: 0, metafields, inventory_policies: policies, revision: Number(row.revision), current };
    }
    const input = sellingPlanGroupUpdateFromOffer(
      offer,
      existing.sellingPlans.nodes.map((p) => ({ id: p.id, option: paymentOptionOfPlan(p) })),
    );
    const { group } = await updateSellingPlanGroup(client, existing.id, input, options);
    const plans = offerPlansOf(group, offer);
    // The new plans are recorded before anything else can fail, so orders on them find the offer.
    await recordPlans(pool, shopId, offerId, plans);
    const { added, removed } = await reconcileVariants(client, group, wanted, signal);
    const metafields = await syncMetafields(pool, client, row, plans, wanted, signal);
    const policies = await syncPolicies(pool, client, row, wanted, signal);
    const current = await recordSynced(pool, shopId, offerId, row.revision, group.id, plans);
    return { outcome: "updated", group_id: group.id, added, removed, metafields, inventory_policies: policies, revision: Number(row.revision), current };
  } catch (error) {
    await recordSyncFailure(pool, offerId, error).catch(() => undefined);
    throw error;
  }
}
