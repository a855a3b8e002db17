import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { type ActionContext, type AnyAction, defineAction } from "../../core/action.ts";
import { type Db, beforeCommit, pendingBeforeCommit, runBeforeCommitNow } from "../../core/db.ts";
import type { JobHandle } from "../../core/jobs.ts";
import { type ApiError, type Issue, conflict, issueText, notFound, unprocessable } from "../../core/errors.ts";
import { notBlank, isoTimestamp } from "../../core/schemas.ts";
import { isUuid } from "../../core/params.ts";
import { formatIssues } from "../../core/validation.ts";
import { enqueueOfferWork } from "../sync/enqueue.ts";
import { type DeepPartial, deepPartialStrict, mergeDeep } from "../../core/deep-partial.ts";

/**
 * The offer model shared by every capability group: the row, the generic group machinery (one
 * zod schema per group from which the GET shape, the deep-partial PATCH and the merged-result
 * check derive), and `touchOffer`, which every committed write calls.
 */

export const OFFER_RESOURCE = "Preorder offer";
export const OFFERS_PATH = "/preorders/offers";
export const OFFER_STATUSES = ["draft", "active", "disabled"] as const;
export type OfferStatus = (typeof OFFER_STATUSES)[number];
export const PRODUCT_SOURCES = ["all", "custom", "collection"] as const;
export type ProductSource = (typeof PRODUCT_SOURCES)[number];
export const SYNC_STATUSES = ["pending", "synced", "failed"] as const;

export type GroupKey =
  | "widget"
  | "shipping"
  | "payments"
  | "limits"
  | "checkout"
  | "inventory"
  | "markets"
  | "countdown"
  | "integrations"
  | "translations"
  | "advanced";

/** Path parameter of every offer action. A malformed id is an unknown id: 404, not 422. */
export const offerParams = z.strictObject({ id: z.string() });

export interface OfferRow {
  id: string;
  shop_id: string;
  name: string;
  internal_name: string;
  status: OfferStatus;
  settings: Record<string, unknown>;
  products_source: ProductSource;
  products_collection_id: string | null;
  products_exclusion_tag: string | null;
  products_excluded_variant_ids: string[];
  current_count: number;
  sync_status: (typeof SYNC_STATUSES)[number];
  sync_last_error: string | null;
  sync_last_event: string | null;
  platform_selling_plan_group_id: string | null;
  platform_selling_plan_id: string | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  /** The offer's schedule (sql/060, src/preorders/offers/schedule.ts). */
  schedule_enable_at: Date | null;
  schedule_disable_at: Date | null;
}

export const OFFER_COLUMNS = `id, shop_id, name, internal_name, status, settings, products_source, products_collection_id,
  products_exclusion_tag, products_excluded_variant_ids, preorder_offer_units(shop_id, id) as current_count, sync_status, sync_last_error,
  sync_last_event, platform_selling_plan_group_id, platform_selling_plan_id, created_at, updated_at, deleted_at, schedule_enable_at, schedule_disable_at`;

/** The shop's live (not deleted) offer, or 404 `Preorder offer not found: <id>`. `lock` takes the row for the write. */
export async function findOffer(db: Db, shopId: string, id: string, lock = false): Promise<OfferRow> {
  if (!isUuid(id)) throw notFound(OFFER_RESOURCE, id);
  const { rows } = await db.query<OfferRow>(
    `select ${OFFER_COLUMNS} from preorder_offers
     where shop_id = $1 and id = $2 and deleted_at is null ${lock ? "for update" : ""}`,
    [shopId, id],
  );
  const row = rows[0];
  if (!row) throw notFound(OFFER_RESOURCE, id);
  return row;
}

/**
 * Every committed change to an offer goes through here, in the write's transaction: the first
 * touch of the offer in a transaction makes it due for sync to the platform again (`sync.status`
 * pending) and moves its revision and `updated_at`, once however many writes touch it; its work
 * (the sync, and a resolution when its source changed: sync/enqueue.ts) is queued once, just before
 * the commit, from the offer as the transaction leaves it. No committed change misses its job and
 * no rolled-back one leaves one. On a pool (autocommit) both happen at once.
 */
export async function touchOffer(db: Db, shopId: string, offerId: string): Promise<void> {
  if (!pendingBeforeCommit(db, touchedKey(offerId))) {
    await db.query(
      `update preorder_offers set revision = revision + 1, sync_status = 'pending', updated_at = now()
       where shop_id = $1 and id = $2`,
      [shopId, offerId],
    );
    await beforeCommit(db, touchedKey(offerId), async () => undefined);
  }
  // Again after a flush: a write after it must still queue its work at the commit.
  await beforeCommit(db, workKey(offerId), () => enqueueOfferWork(db, shopId, offerId));
}

/**
 * Queues the offer's work now rather than at the commit (and not again then, unless touched again):
 * the handle of the resolution it queued, for an action that answers it.
 */
export async function flushOfferWork(db: Db, offerId: string): Promise<JobHandle | undefined> {
  return runBeforeCommitNow<JobHandle | undefined>(db, workKey(offerId));
}

const touchedKey = (offerId: string) => `offer_touched:${offerId}`;
const workKey = (offerId: string) => `offer_work:${offerId}`;

/** What a group's rules may look at: the whole offer (other groups), and the database (mirror lookups). */
interface RuleEnv {
  db: Db;
  shopId: string;
  offer: OfferState;
  /** What the request sent (the group's deep partial), to name the field a violation is about. */
  patch: unknown;
}

/**
 * A capability group. Violations are one issue each, its path relative to the group
 * (`{ path: "fulfillment.split.type", message: "cannot be ..." }`), in the stable message forms.
 */
export interface GroupDef<T extends Record<string, unknown>> {
  key: GroupKey;
  /** The stored and returned shape, with every default. */
  schema: z.ZodType<T>;
  /** The deep-partial PATCH body: strict at every level. */
  patch: z.ZodType<DeepPartial<T>>;
  defaults(): T;
  /**
   * After the merge, before the checks: derived values (`no_discount` nulls the value), effects on
   * other groups (through `offer.modify`), and contradictions within the request itself.
   */
  normalize?(next: T, patch: DeepPartial<T>, offer: OfferState): Issue[];
  /** Cross-field rules on the merged, normalised value. */
  rules?(value: T, env: RuleEnv): Issue[] | Promise<Issue[]>;
  /** The GET shape, when it adds derived fields to the stored value. */
  present?(value: T, row: OfferRow): Record<string, unknown>;
  /** What its GET, PATCH and named POSTs answer, on the wire (outputs.ts): the `output` of those actions. */
  output?: z.ZodType;
  /** Top-level fields its GET shows that the PATCH refuses → what sets them (the 422 says it). */
  instead?: Readonly<Record<string, string>>;
}

// Group definitions are generic in their value type; a list of them is typed by this.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyGroup = GroupDef<any>;

export function defineGroup<S extends z.ZodObject>(def: {
  key: GroupKey;
  schema: S;
  /** Top-level keys the PATCH does not take (derived, or edited only by named actions). */
  readOnly?: readonly (keyof z.output<S> & string)[];
  normalize?: (next: z.output<S>, patch: DeepPartial<z.output<S>>, offer: OfferState) => Issue[];
  rules?: (value: z.output<S>, env: RuleEnv) => Issue[] | Promise<Issue[]>;
  present?: (value: z.output<S>, row: OfferRow) => Record<string, unknown>;
  output?: z.ZodType;
  instead?: Readonly<Record<string, string>>;
}): GroupDef<z.output<S>> {
  const omitted = Object.fromEntries((def.readOnly ?? []).map((k) => [k, true]));
  const editable = def.readOnly?.length ? (def.schema as z.ZodObject).omit(omitted as never) : def.schema;
  return {
    key: def.key,
    schema: def.schema as unknown as z.ZodType<z.output<S>>,
    patch: deepPartialStrict(editable) as z.ZodType<DeepPartial<z.output<S>>>,
    defaults: () => def.schema.parse({}),
    ...(def.normalize ? { normalize: def.normalize } : {}),
    ...(def.rules ? { rules: def.rules } : {}),
    ...(def.present ? { present: def.present } : {}),
    ...(def.output ? { output: def.output } : {}),
    ...(def.instead ? { instead: def.instead } : {}),
  };
}

/** One offer being read or changed: its groups are parsed from `settings` (defaults filling gaps) on first use. */
export class OfferState {
  row: OfferRow;
  private readonly values = new Map<GroupKey, unknown>();
  private readonly stored = new Map<GroupKey, unknown>();
  private readonly groups = new Map<GroupKey, AnyGroup>();

  constructor(row: OfferRow) {
    this.row = row;
  }

  get<T extends Record<string, unknown>>(group: GroupDef<T>): T {
    if (!this.values.has(group.key)) {
      const parsed = group.schema.parse(this.row.settings[group.key] ?? {});
      this.values.set(group.key, parsed);
      this.stored.set(group.key, structuredClone(parsed));
      this.groups.set(group.key, group);
    }
    return this.values.get(group.key) as T;
  }

  set<T extends Record<string, unknown>>(group: GroupDef<T>, value: T): void {
    this.get(group);
    this.values.set(group.key, value);
  }

  /** Changes another group in place, as an effect of this change. */
  modify<T extends Record<string, unknown>>(group: GroupDef<T>, change: (value: T) => void): void {
    const value = structuredClone(this.get(group));
    change(value);
    this.set(group, value);
  }

  /** The groups whose value differs from what is stored, keyed for `settings || $changes`. */
  changedSettings(): Record<string, unknown> {
    const changed: Record<string, unknown> = {};
    for (const [key, value] of this.values) {
      if (!isDeepStrictEqual(value, this.stored.get(key))) changed[key] = value;
    }
    return changed;
  }
}

export function presentGroup<T extends Record<string, unknown>>(group: GroupDef<T>, value: T, row: OfferRow): Record<string, unknown> {
  return group.present ? group.present(value, row) : value;
}

/**
 * Merges `patch` into the group, normalises and checks the merged result. Returns the violations
 * (relative field paths); the offer holds the new value when there are none.
 */
export async function applyGroupPatch<T extends Record<string, unknown>>(
  offer: OfferState,
  group: GroupDef<T>,
  patch: DeepPartial<T>,
  env: Omit<RuleEnv, "offer" | "patch">,
): Promise<Issue[]> {
  const next = mergeDeep(offer.get(group), patch, group.schema) as T;
  const violations = group.normalize?.(next, patch, offer) ?? [];
  const parsed = group.schema.safeParse(next, { reportInput: true });
  if (!parsed.success) return [...violations, ...formatIssues(parsed.error.issues)];
  violations.push(...((await group.rules?.(parsed.data, { ...env, offer, patch })) ?? []));
  if (violations.length === 0) offer.set(group, parsed.data);
  return violations;
}

/** A check of an offer's settings as a whole, before they are saved: its issues answer 422. */
export type SettingsCheck = (db: Db, offer: OfferState) => Promise<Issue[]>;

const settingsChecks: SettingsCheck[] = [];

/**
 * Adds a check that saveSettings runs on every change of an offer's settings. Declared above the
 * groups by what reads them all (the storefront's metafield: preorders/sync/storefront-size.ts),
 * which this module cannot import without a cycle through the groups.
 */
export function addSettingsCheck(check: SettingsCheck): void {
  if (!settingsChecks.includes(check)) settingsChecks.push(check);
}

/** Writes the changed groups and marks the offer changed; false (and no write) when nothing changed. */
export async function saveSettings(db: Db, offer: OfferState): Promise<boolean> {
  const changes = offer.changedSettings();
  if (Object.keys(changes).length === 0) return false;
  for (const check of settingsChecks) {
    const issues = await check(db, offer);
    if (issues.length > 0) throw unprocessable(issues);
  }
  const { rows } = await db.query<{ settings: Record<string, unknown> }>(
    "update preorder_offers set settings = settings || $3::jsonb where shop_id = $1 and id = $2 returning settings",
    [offer.row.shop_id, offer.row.id, JSON.stringify(changes)],
  );
  if (rows[0]) offer.row = { ...offer.row, settings: rows[0].settings };
  await touchOffer(db, offer.row.shop_id, offer.row.id);
  return true;
}

type ViolationMode = "patch" | "action";

/** 422 for a PATCH (the request's combination is invalid); 409 for a named action (the offer's state refuses it). */
function violationError(mode: ViolationMode, group: GroupKey, action: string, violations: Issue[]): ApiError {
  if (mode === "patch") return unprocessable(violations);
  return conflict(`${action} refused: ${violations.map((v) => `${group}.${issueText(v)}`).join("; ")}`);
}

/** Loads, changes and saves one group of one offer in the write's transaction. */
export async function changeGroup<T extends Record<string, unknown>>(
  ctx: ActionContext,
  offerId: string,
  group: GroupDef<T>,
  options: {
    mode: ViolationMode;
    action: string;
    /** 409 checks on the offer's current state, before anything changes. */
    precheck?: (offer: OfferState) => void;
    patch: (current: T, offer: OfferState) => DeepPartial<T>;
  },
): Promise<{ offer: OfferState; value: T; changed: boolean }> {
  const offer = new OfferState(await findOffer(ctx.db, ctx.shopId, offerId, true));
  options.precheck?.(offer);
  const patch = options.patch(offer.get(group), offer);
  const violations = await applyGroupPatch(offer, group, patch, { db: ctx.db, shopId: ctx.shopId });
  if (violations.length > 0) throw violationError(options.mode, group.key, options.action, violations);
  const changed = await saveSettings(ctx.db, offer);
  return { offer, value: offer.get(group), changed };
}

// ---- action factories: every group has a GET, a PATCH and named POSTs in the same style ----

export const groupPath = (group: GroupKey | "products", action?: string): string => `${OFFERS_PATH}/{id}/${group}${action ? `/${action}` : ""}`;

/** What an action adds for agents and the docs: its natural-language aliases and its rules (action.ts). */
interface ActionMeta {
  aliases?: string[];
  notes?: string[];
}

function metaOf(meta: ActionMeta | undefined, output: z.ZodType | undefined): Pick<AnyAction, "aliases" | "notes" | "output"> {
  return {
    ...(meta?.aliases ? { aliases: meta.aliases } : {}),
    ...(meta?.notes ? { notes: meta.notes } : {}),
    ...(output ? { output } : {}),
  };
}

export function groupGetAction<T extends Record<string, unknown>>(group: GroupDef<T>, description: string, meta?: ActionMeta): AnyAction {
  return defineAction({
    name: `preorders.offers.${group.key}.get`,
    method: "GET",
    path: groupPath(group.key),
    description,
    ...metaOf(meta, group.output),
    kind: "read",
    params: offerParams,
    input: z.strictObject({}),
    async handler(ctx, { params }) {
      const row = await findOffer(ctx.db, ctx.shopId, params.id);
      return presentGroup(group, new OfferState(row).get(group), row);
    },
  });
}

export function groupPatchAction<T extends Record<string, unknown>>(group: GroupDef<T>, description: string, meta?: ActionMeta): AnyAction {
  return defineAction({
    name: `preorders.offers.${group.key}.update`,
    method: "PATCH",
    path: groupPath(group.key),
    description: `${description} Deep partial: only the fields sent change; the merged result is validated as a whole (422, one message per field). Answers the group as committed.`,
    ...metaOf(meta, group.output),
    kind: "write",
    params: offerParams,
    input: group.patch,
    ...(group.instead ? { refusedFields: group.instead } : {}),
    async handler(ctx, { params, input }) {
      const { offer, value } = await changeGroup(ctx, params.id, group, {
        mode: "patch",
        action: `PATCH ${group.key}`,
        patch: () => input,
      });
      return presentGroup(group, value, offer.row);
    },
  });
}

/**
 * A named POST on a group: `precheck` answers 409 when the offer's state refuses the action, `patch`
 * says what it changes, and the group's rules check the result (409 on a violation, as the
 * action asked for a transition the offer's state does not allow).
 */
export function groupAction<T extends Record<string, unknown>, I extends z.ZodType<Record<string, unknown>>>(
  group: GroupDef<T>,
  spec: ActionMeta & {
    action: string;
    description: string;
    /** What it answers when `respond` gives another shape than the group's. */
    output?: z.ZodType;
    input: I;
    precheck?: (offer: OfferState, input: z.output<I>) => void;
    patch: (input: z.output<I>, current: T, offer: OfferState) => DeepPartial<T>;
    respond?: (value: T, row: OfferRow) => unknown;
  },
): AnyAction {
  return defineAction({
    name: `preorders.offers.${group.key}.${spec.action}`,
    method: "POST",
    path: groupPath(group.key, spec.action),
    description: spec.description,
    ...metaOf(spec, spec.output ?? group.output),
    kind: "write",
    params: offerParams,
    input: spec.input,
    async handler(ctx, { params, input }) {
      const { offer, value } = await changeGroup(ctx, params.id, group, {
        mode: "action",
        action: `${group.key}/${spec.action}`,
        ...(spec.precheck ? { precheck: (o: OfferState) => spec.precheck?.(o, input) } : {}),
        patch: (current, o) => spec.patch(input, current, o),
      });
      return spec.respond ? spec.respond(value, offer.row) : presentGroup(group, value, offer.row);
    },
  });
}

// ---- schema building blocks of the groups ----

/** Text lengths (the spec leaves them open): labels, longer texts, CSS. */
export const LIMITS = { label: 255, text: 2000, css: 20_000, tags: 250, variantIds: 1000 } as const;

export const label = z.string().max(LIMITS.label);
/** A label that must say something: empty is "must not be empty", whitespace alone "must not be blank". */
export const requiredLabel = notBlank(label);
export const longText = z.string().max(LIMITS.text);

/** An ISO 8601 timestamp with a zone, stored and answered in UTC (`2026-11-01T09:00:00.000Z`). */
export const timestamp = isoTimestamp.transform((value) => new Date(value).toISOString());

export const cssLength = z
  .string({ error: "must be a CSS length such as 4px" })
  .regex(/^(?:0|\d+(?:\.\d+)?(?:px|em|rem|%))$/, "must be a CSS length such as 4px")
  .meta({ examples: ["4px", "0.5rem"] });

/** A platform tag: no commas (the platform joins tags with them), at most 40 characters. */
export const platformTag = z
  .string()
  .trim()
  .min(1)
  .max(40)
  .regex(/^[^,]+$/, "must not contain a comma");

/** Fields of a body where at least one must be present. */
export function atLeastOne(fields: readonly string[]) {
  return (value: Record<string, unknown>, ctx: z.RefinementCtx): void => {
    if (fields.every((f) => value[f] === undefined)) {
      const others = fields.slice(1);
      const alternatives = others.length > 1 ? `${others.slice(0, -1).join(", ")} or ${others.at(-1) ?? ""}` : (others[0] ?? "");
      ctx.addIssue({ code: "custom", path: [fields[0] ?? "body"], message: `is required unless ${alternatives} is given` });
    }
  };
}
