import { z } from "zod";
import { assertCatalogMirrored } from "../../../catalog/readiness.ts";
import { type ActionContext, type AnyAction, defineAction } from "../../../core/action.ts";
import { withOfferDefaults } from "../../settings/offer-defaults.ts";
import { loadPreorderSettings } from "../../settings/settings.ts";
import type { Db } from "../../../core/db.ts";
import { ApiError, type Issue, notFound, unprocessable } from "../../../core/errors.ts";
import { V2_BASE_PATH } from "../../../core/manifest.ts";
import { PAGING_RULE, pageAnswer, pageOrCursor, paging, pagingParams, cursorPart } from "../../../core/paging.ts";
import { notBlank } from "../../../core/schemas.ts";
import { Filters } from "../../../core/sql-filters.ts";
import { checkoutGroup } from "../groups/checkout.ts";
import { countdownGroup } from "../groups/countdown.ts";
import { isPlainObject } from "../../../core/deep-partial.ts";
import { integrationsGroup } from "../groups/integrations.ts";
import { inventoryGroup } from "../groups/inventory.ts";
import { limitsGroup } from "../groups/limits.ts";
import { marketsGroup } from "../groups/markets.ts";
import {
  type AnyGroup,
  type GroupKey,
  OFFERS_PATH,
  OFFER_COLUMNS,
  OFFER_RESOURCE,
  OFFER_STATUSES,
  type OfferRow,
  OfferState,
  type OfferStatus,
  applyGroupPatch,
  findOffer,
  label,
  flushOfferWork,
  touchOffer,
  offerParams,
  presentGroup,
  saveSettings,
} from "../model.ts";
import {
  type ResolvedVariant,
  type VariantStats,
  addOfferVariants,
  collectionExists,
  presentProducts,
  resolveVariants,
  variantRefs,
  variantStats,
} from "./products.ts";
import { advancedGroup, paymentsGroup, shippingGroup } from "../groups/plan-groups.ts";
import { translationsGroup } from "../groups/translations.ts";
import { offerCreatedOutput, offerDeletedOutput, offerOutput, offerPageOutput } from "../outputs.ts";
import { widgetGroup } from "../groups/widget.ts";
import { clearSchedule } from "../schedule.ts";
import { setOfferStatus } from "../status.ts";

/** The twelve capability groups minus products (columns, see products.ts), in the spec's order. */
const OFFER_GROUPS: readonly AnyGroup[] = [
  widgetGroup,
  shippingGroup,
  paymentsGroup,
  limitsGroup,
  checkoutGroup,
  inventoryGroup,
  marketsGroup,
  countdownGroup,
  integrationsGroup,
  translationsGroup,
  advancedGroup,
];

const variantsUrl = (id: string): string => `${V2_BASE_PATH}${OFFERS_PATH}/${id}/variants`;

/** The full offer, in the shape of the spec's Resources table (plus sync state and the groups' own extra fields). */
function presentOffer(row: OfferRow, stats: VariantStats | undefined): Record<string, unknown> {
  const offer = new OfferState(row);
  const groups = Object.fromEntries(OFFER_GROUPS.map((group) => [group.key, presentGroup(group, offer.get(group), row)])) as Record<GroupKey, unknown>;
  return {
    id: row.id,
    name: row.name,
    internal_name: row.internal_name,
    status: row.status,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    variants: { count: stats?.count ?? 0, url: variantsUrl(row.id) },
    schedule: { enable_at: row.schedule_enable_at?.toISOString() ?? null, disable_at: row.schedule_disable_at?.toISOString() ?? null },
    products: presentProducts(row, stats),
    widget: groups.widget,
    shipping: groups.shipping,
    payments: groups.payments,
    limits: groups.limits,
    checkout: groups.checkout,
    inventory: groups.inventory,
    markets: groups.markets,
    countdown: groups.countdown,
    integrations: groups.integrations,
    translations: groups.translations,
    advanced: groups.advanced,
    sync: {
      // A draft's sync records its revision and sends nothing: "synced" would claim a group it has not.
      status: row.status === "draft" && row.sync_status === "synced" ? "draft" : row.sync_status,
      last_error: row.sync_last_error,
      last_event: row.sync_last_event,
      platform_selling_plan_group_id: row.platform_selling_plan_group_id,
    },
  };
}

/** The offer as committed (or read), for an answer. */
export async function loadOfferView(db: Db, shopId: string, id: string): Promise<Record<string, unknown>> {
  const row = await findOffer(db, shopId, id);
  return presentOffer(row, (await variantStats(db, [row.id])).get(row.id));
}

// ---- create ----

const productsCreateInput = z
  .strictObject({
    source: z.enum(["all", "custom", "collection"]).optional(),
    variant_ids: variantRefs.optional(),
    collection_id: z.string().min(1).max(255).optional(),
    exclusion_tag: label.min(1).nullable().optional(),
    excluded_variant_ids: variantRefs.optional(),
  })
  .superRefine((value, ctx) => {
    const source = value.source ?? "custom";
    if (source === "collection" && value.collection_id === undefined) {
      ctx.addIssue({ code: "custom", path: ["collection_id"], message: "is required when source is collection" });
    }
    if (source !== "collection" && value.collection_id !== undefined) {
      ctx.addIssue({ code: "custom", path: ["collection_id"], message: "is not allowed unless source is collection" });
    }
    if (source !== "custom" && value.variant_ids !== undefined) {
      ctx.addIssue({ code: "custom", path: ["variant_ids"], message: "is not allowed unless source is custom" });
    }
  });

export type ProductsCreate = z.output<typeof productsCreateInput>;

const createInput = z.strictObject({
  name: notBlank(label),
  internal_name: label.optional(),
  products: productsCreateInput.optional(),
  ...(Object.fromEntries(OFFER_GROUPS.map((group) => [group.key, group.patch.optional()])) as Record<GroupKey, z.ZodOptional<z.ZodType<Record<string, unknown>>>>),
});

interface CreateOfferSpec {
  name: string;
  internal_name?: string | undefined;
  status?: OfferStatus;
  products?: ProductsCreate | undefined;
  /** Each group's deep partial, applied over the defaults and checked like a PATCH. */
  groups: Partial<Record<GroupKey, unknown>>;
}

/**
 * Creates an offer in the write's transaction: every group's rules run on the defaults merged with
 * what was given (422 with `<group>.<field>` messages, nothing written). Returns the new row.
 */
export async function createOffer(ctx: ActionContext, spec: CreateOfferSpec): Promise<OfferRow> {
  const products = spec.products ?? {};
  // An all or collection source is resolved over the mirror: not before the first full sync.
  if (products.source === "all" || products.source === "collection") await assertCatalogMirrored(ctx.db, ctx.shopId);
  const violations: Issue[] = [];
  let variants: ResolvedVariant[] = [];
  try {
    variants = await resolveVariants(ctx.db, ctx.shopId, products.variant_ids ?? [], "products.variant_ids");
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== "UNPROCESSABLE") throw error;
    violations.push(...error.issues);
  }
  if (products.collection_id !== undefined && !(await collectionExists(ctx.db, ctx.shopId, products.collection_id))) {
    violations.push({ path: "products.collection_id", message: "must be a collection of this shop" });
  }
  const { rows } = await ctx.db.query<OfferRow>(
    `insert into preorder_offers (shop_id, name, internal_name, status, products_source, products_collection_id,
                                  products_exclusion_tag, products_excluded_variant_ids)
     values ($1, $2, $3, $4, $5, $6, $7, $8)
     returning ${OFFER_COLUMNS}`,
    [
      ctx.shopId,
      spec.name,
      spec.internal_name ?? spec.name,
      spec.status ?? "draft",
      products.source ?? "custom",
      products.collection_id ?? null,
      products.exclusion_tag ?? null,
      [...new Set(products.excluded_variant_ids ?? [])],
    ],
  );
  const row = rows[0];
  if (!row) throw new Error("offer insert returned no row");
  const offer = new OfferState(row);
  // Translations start from the shop's default locale.
  const translations = spec.groups.translations;
  if (!isPlainObject(translations) || translations.default_locale === undefined) {
    const { rows: shop } = await ctx.db.query<{ default_locale: string }>("select default_locale from shops where id = $1", [ctx.shopId]);
    if (shop[0]) offer.modify(translationsGroup, (value) => void (value.default_locale = shop[0]?.default_locale ?? value.default_locale));
  }
  for (const group of OFFER_GROUPS) {
    const found = await applyGroupPatch(offer, group, spec.groups[group.key] ?? {}, { db: ctx.db, shopId: ctx.shopId });
    violations.push(...found.map((v) => ({ path: v.path === "" ? group.key : `${group.key}.${v.path}`, message: v.message })));
  }
  if (violations.length > 0) throw unprocessable(violations);
  await saveSettings(ctx.db, offer);
  await addOfferVariants(ctx.db, ctx.shopId, row.id, variants);
  await touchOffer(ctx.db, ctx.shopId, row.id);
  return findOffer(ctx.db, ctx.shopId, row.id);
}

const OFFER_SHAPE =
  "id, name, internal_name, status (draft, active, disabled), created_at, updated_at, variants (count, url of the variant list), products, widget, shipping, payments, limits, checkout, inventory, markets, countdown, integrations, translations, advanced, and sync (status pending, synced, failed, or draft: nothing is on the platform while the offer is a draft; last_error; last_event, the last thing a sync did that needs telling, e.g. a selling plan group the platform lost was created again; platform_selling_plan_group_id)";

const createOfferAction = defineAction({
  name: "preorders.offers.create",
  method: "POST",
  path: OFFERS_PATH,
  description: `Creates a preorder offer (status draft; enable it with POST /preorders/offers/{id}/enable). A draft is not put on the store platform: its selling plan group is created when it is enabled. Body: name (required), internal_name (defaults to name), products (source all, custom or collection; variant_ids for custom; collection_id for collection; exclusion_tag, excluded_variant_ids), and any capability group's deep-partial settings as its PATCH takes them (widget, shipping, payments, ...), checked by the same rules. Not idempotent. Answers the full offer: ${OFFER_SHAPE}; and resolution_job, the handle (job_id, status_url) of the job resolving an all or collection source's variants (null for custom).`,
  aliases: ["create a preorder offer", "set up preorders for products", "start a new preorder campaign"],
  notes: [
    "A new offer is a draft: nothing is on the store platform until it is enabled.",
    "Not idempotent: sending the same body twice creates two offers.",
    "Group settings given here are checked by the same rules as each group's PATCH (422 with group.field paths).",
    "Fields the body leaves out take the shop's offer_defaults (GET /preorders/settings) where set: widget.button.text, checkout.order_tags.tags, payments.remaining_balance.auto_collect and .due (days after checkout).",
  ],
  output: offerCreatedOutput,
  kind: "write",
  input: createInput,
  // A group's field its PATCH refuses is refused here too (`payments.mode`), saying what sets it.
  refusedFields: Object.fromEntries(OFFER_GROUPS.flatMap((group) => Object.entries(group.instead ?? {}).map(([field, hint]) => [`${group.key}.${field}`, hint]))),
  async handler(ctx, { input }) {
    const { name, internal_name, products, ...body } = input;
    // The shop's offer defaults (PATCH /preorders/settings offer_defaults) fill what the body leaves out.
    const groups = withOfferDefaults(body, (await loadPreorderSettings(ctx.db, ctx.shopId)).offer_defaults);
    const row = await createOffer(ctx, { name, internal_name, products, groups });
    const resolution = await flushOfferWork(ctx.db, row.id);
    return { ...presentOffer(row, (await variantStats(ctx.db, [row.id])).get(row.id)), resolution_job: resolution ?? null };
  },
});

// ---- list, get, rename, delete ----

const listOffersAction = defineAction({
  name: "preorders.offers.list",
  method: "GET",
  path: OFFERS_PATH,
  description: `The shop's offers, newest first, filtered by status (draft, active or disabled). Answers { offers: [full offer, ...], page, per_page, total, next_cursor }. ${PAGING_RULE}. Deleted offers are not listed.`,
  aliases: ["list preorder offers", "show all preorder offers", "find active preorder offers"],
  output: offerPageOutput,
  kind: "read",
  input: z
    .strictObject({
      ...pagingParams(z.tuple([cursorPart.timestamp, cursorPart.uuid])),
      status: z.enum(OFFER_STATUSES).optional(),
    })
    .superRefine(pageOrCursor),
  async handler(ctx, { input }) {
    const p = paging(input);
    const where = new Filters([ctx.shopId]).add("shop_id = $1 and deleted_at is null").when(input.status, (s) => `status = ${s}`);
    const { rows: counted } = await ctx.db.query<{ n: number }>(`select count(*)::int as n from preorder_offers where ${where.sql()}`, where.params);
    if (p.after) where.add(`(created_at, id) < (${where.param(p.after[0])}::timestamptz, ${where.param(p.after[1])}::uuid)`);
    const { rows } = await ctx.db.query<OfferRow & { cursor_at: string }>(
      `select ${OFFER_COLUMNS}, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at from preorder_offers
       where ${where.sql()}
       order by created_at desc, id desc
       limit ${String(p.limit)} offset ${String(p.offset)}`,
      where.params,
    );
    const stats = await variantStats(ctx.db, rows.map((r) => r.id));
    return pageAnswer("offers", p, rows, counted[0]?.n ?? 0, (row) => [row.cursor_at, row.id], ({ cursor_at: _cursor, ...row }) =>
      presentOffer(row, stats.get(row.id)),
    );
  },
});

const getOfferAction = defineAction({
  name: "preorders.offers.get",
  method: "GET",
  path: `${OFFERS_PATH}/{id}`,
  description: `One offer in full: ${OFFER_SHAPE}. 404 for a deleted offer or another shop's.`,
  aliases: ["show a preorder offer", "read a preorder offer in full", "get preorder offer details"],
  output: offerOutput,
  kind: "read",
  params: offerParams,
  input: z.strictObject({}),
  async handler(ctx, { params }) {
    return loadOfferView(ctx.db, ctx.shopId, params.id);
  },
});

const updateOfferAction = defineAction({
  name: "preorders.offers.update",
  method: "PATCH",
  path: `${OFFERS_PATH}/{id}`,
  description:
    "Renames an offer: name (shown to customers), internal_name (for the merchant). Settings are edited per capability (PATCH /preorders/offers/{id}/<capability>), status by enable and disable. Answers the full offer.",
  aliases: ["rename a preorder offer", "change the internal name of a preorder offer"],
  notes: ["Settings change by each capability's PATCH, the status by enable and disable."],
  output: offerOutput,
  kind: "write",
  params: offerParams,
  input: z.strictObject({ name: notBlank(label).optional(), internal_name: label.optional() }),
  async handler(ctx, { params, input }) {
    const row = await findOffer(ctx.db, ctx.shopId, params.id, true);
    const name = input.name ?? row.name;
    const internalName = input.internal_name ?? row.internal_name;
    if (name !== row.name || internalName !== row.internal_name) {
      await ctx.db.query("update preorder_offers set name = $3, internal_name = $4 where shop_id = $1 and id = $2", [ctx.shopId, row.id, name, internalName]);
      await touchOffer(ctx.db, ctx.shopId, row.id);
    }
    return loadOfferView(ctx.db, ctx.shopId, row.id);
  },
});

const deleteOfferAction = defineAction({
  name: "preorders.offers.delete",
  method: "DELETE",
  path: `${OFFERS_PATH}/{id}`,
  description:
    "Deletes an offer (soft: kept for orders and reports, removed from the platform by its sync). Afterwards every offer path answers 404 for it. Answers { id, deleted_at }.",
  aliases: ["delete a preorder offer", "remove a preorder offer"],
  notes: ["Soft delete: the offer is kept for orders and reports, but every offer path answers 404 for it afterwards."],
  output: offerDeletedOutput,
  kind: "write",
  params: offerParams,
  input: z.strictObject({}),
  async handler(ctx, { params }) {
    const row = await findOffer(ctx.db, ctx.shopId, params.id, true);
    const { rows } = await ctx.db.query<{ deleted_at: Date }>(
      "update preorder_offers set deleted_at = now() where shop_id = $1 and id = $2 and deleted_at is null returning deleted_at",
      [ctx.shopId, row.id],
    );
    const deleted = rows[0];
    if (!deleted) throw notFound(OFFER_RESOURCE, params.id);
    await clearSchedule(ctx.db, ctx.shopId, row.id);
    await touchOffer(ctx.db, ctx.shopId, row.id);
    return { id: row.id, deleted_at: deleted.deleted_at.toISOString() };
  },
});

// ---- lifecycle ----

function lifecycleAction(action: "enable" | "disable", target: OfferStatus, description: string, aliases: string[]): AnyAction {
  return defineAction({
    name: `preorders.offers.${action}`,
    method: "POST",
    path: `${OFFERS_PATH}/{id}/${action}`,
    description,
    aliases,
    notes: [`Idempotent: an offer already ${target} is answered as it is, unchanged.`],
    output: offerOutput,
    kind: "write",
    params: offerParams,
    input: z.strictObject({}),
    async handler(ctx, { params }) {
      const row = await findOffer(ctx.db, ctx.shopId, params.id, true);
      // Idempotent: an offer already in the target state is answered as it is, untouched.
      await setOfferStatus(ctx.db, ctx.shopId, row, target);
      return loadOfferView(ctx.db, ctx.shopId, row.id);
    },
  });
}

export const OFFER_ACTIONS: readonly AnyAction[] = [
  createOfferAction,
  listOffersAction,
  getOfferAction,
  updateOfferAction,
  deleteOfferAction,
  lifecycleAction(
    "enable",
    "active",
    "Enables the offer (status active): its preorder button shows on the storefront, and an offer enabled for the first time gets its selling plan group on the store platform (a draft has none). Idempotent: enabling an active offer changes nothing and answers it as it is. Answers the full offer.",
    ["enable a preorder offer", "turn on preorders for an offer", "publish a preorder offer"],
  ),
  lifecycleAction(
    "disable",
    "disabled",
    "Disables the offer (status disabled): its preorder button no longer shows; its selling plan group stays on the store platform. Idempotent: disabling a disabled offer changes nothing and answers it as it is. Answers the full offer.",
    ["disable a preorder offer", "turn off preorders for an offer", "pause a preorder offer"],
  ),
];
