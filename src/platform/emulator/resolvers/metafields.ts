import { createHash } from "node:crypto";
import type { Context } from "../context.ts";
import { byId, paginate } from "../connection.ts";
import { SHOP_ID, parseGid } from "../ids.ts";
import type { Customer, Metafield, MetafieldOwnerType, Product, Variant } from "../model.ts";
import type { ConnectionArgs, Resolvers } from "./types.ts";
import { UserErrors } from "./user-errors.ts";

/**
 * Metafields as the platform's Admin API has them: `metafieldsSet` (at most 25 per call, atomic:
 * one user error and nothing is set), `metafieldsDelete` (null for an identifier with no
 * metafield), and `metafield` / `metafields` on products, variants, customers (ownerType
 * CUSTOMER, as an app keeps a counter on a buyer that its checkout function reads) and the shop
 * (owner `gid://shopify/Shop/1`, as `shop { id }` answers it). An owner the store does not have
 * is refused (`Owner ... does not exist.`, INVALID_VALUE on ownerId). `$app` and `$app:x` are the
 * calling app's reserved namespace (`app--<app id>`, `app--<app id>--x`), also the default when the
 * namespace is left out; another app's reserved namespace is refused. No metafield definitions:
 * a new metafield needs its type.
 */

/** The platform's limit on metafields per metafieldsSet call. */
export const MAX_METAFIELDS_PER_SET = 25;
/** metafieldsDelete: the platform's array limit. */
const MAX_METAFIELDS_PER_DELETE = 250;

/** Value size limits in bytes (UTF-8): json 128 KB (API 2026-04 on), id and url 2 KB, the rest 64 KB. */
const SIZE_LIMITS: Record<string, number> = { json: 131_072, id: 2_048, url: 2_048 };
const DEFAULT_SIZE_LIMIT = 65_536;

const SCALAR_TYPES = [
  "boolean",
  "color",
  "date",
  "date_time",
  "id",
  "json",
  "multi_line_text_field",
  "number_decimal",
  "number_integer",
  "single_line_text_field",
  "url",
] as const;
/** List types the emulator takes: a JSON array of the single type's values. */
const LIST_TYPES = ["list.single_line_text_field", "list.number_integer", "list.number_decimal", "list.url", "list.color", "list.date", "list.date_time"];
const TYPES = new Set<string>([...SCALAR_TYPES, ...LIST_TYPES]);

const KEY = /^[A-Za-z0-9_-]+$/;

/** Whether `value` is a valid value of `type`. */
function validValue(type: string, value: string): boolean {
  if (type.startsWith("list.")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      return false;
    }
    return Array.isArray(parsed) && parsed.length <= 128 && parsed.every((item) => validValue(type.slice(5), typeof item === "string" ? item : JSON.stringify(item)));
  }
  switch (type) {
    case "json":
      try {
        JSON.parse(value);
        return true;
      } catch {
        return false;
      }
    case "boolean":
      return value === "true" || value === "false";
    case "number_integer":
      return /^-?\d+$/.test(value) && Number.isSafeInteger(Number(value));
    case "number_decimal":
      return /^-?\d+(?:\.\d+)?$/.test(value);
    case "color":
      return /^#[0-9A-Fa-f]{6}$/.test(value);
    case "date":
      return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value));
    case "date_time":
      return !Number.isNaN(Date.parse(value));
    case "url":
      return /^(https?:\/\/|mailto:|sms:|tel:|\/)/.test(value);
    case "single_line_text_field":
      return !/[\r\n]/.test(value);
    default:
      return true;
  }
}

/** The opaque digest of a value, for compare-and-set. */
export function compareDigest(metafield: Pick<Metafield, "type" | "value">): string {
  return createHash("sha256").update(`${metafield.type}\n${metafield.value}`).digest("hex");
}

type Resolved = { namespace: string } | { error: "invalid" | "not_authorized" };

/** `$app`, `$app:x` to the app's reserved namespace; another app's reserved namespace is not authorized. */
function resolveNamespace(ctx: Context, namespace: string | null | undefined): Resolved {
  const given = namespace ?? "$app";
  const own = `app--${ctx.appId}`;
  let resolved = given;
  if (given === "$app") resolved = own;
  else if (given.startsWith("$app:")) {
    const rest = given.slice(5);
    if (!KEY.test(rest)) return { error: "invalid" };
    resolved = `${own}--${rest}`;
  }
  if (resolved.length < 3 || resolved.length > 255 || !KEY.test(resolved)) return { error: "invalid" };
  if (resolved.startsWith("app--") && resolved !== own && !resolved.startsWith(`${own}--`)) return { error: "not_authorized" };
  return { namespace: resolved };
}

interface Owner {
  ownerType: MetafieldOwnerType;
  ownerId: number;
}

function findOwner(ctx: Context, id: string): Owner | undefined {
  const parsed = parseGid(id);
  if (parsed?.type === "Product" && ctx.store.product(parsed.id)) return { ownerType: "PRODUCT", ownerId: parsed.id };
  if (parsed?.type === "ProductVariant" && ctx.store.variant(parsed.id)) return { ownerType: "PRODUCTVARIANT", ownerId: parsed.id };
  if (parsed?.type === "Shop" && parsed.id === SHOP_ID) return { ownerType: "SHOP", ownerId: SHOP_ID };
  if (parsed?.type === "Customer" && ctx.store.customer(parsed.id)) return { ownerType: "CUSTOMER", ownerId: parsed.id };
  return undefined;
}

interface SetInput {
  ownerId: string;
  namespace?: string | null;
  key: string;
  value: string;
  type?: string | null;
  compareDigest?: string | null;
}

interface IdentifierInput {
  ownerId: string;
  namespace: string;
  key: string;
}

/**
 * MetafieldsSetUserError. The input element is named by the path (`metafields.<i>.<field>`);
 * `elementIndex` is null, as the platform answers it in the recorded answers.
 */
class SetErrors {
  readonly list: { field: string[] | null; message: string; code: string; elementIndex: number | null }[] = [];

  add(index: number | null, field: string | null, message: string, code: string): void {
    const path = index === null ? ["metafields"] : ["metafields", String(index), ...(field ? [field] : [])];
    this.list.push({ field: path, message, code, elementIndex: null });
  }
}

const AUTH_MESSAGE = "Access to this namespace and key on Metafields for this resource type is not allowed.";

function metafieldsSet(ctx: Context, inputs: readonly SetInput[]) {
  const errors = new SetErrors();
  if (inputs.length > MAX_METAFIELDS_PER_SET) {
    errors.add(null, null, `Exceeded the maximum metafields input limit of ${MAX_METAFIELDS_PER_SET}.`, "LESS_THAN_OR_EQUAL_TO");
    return { metafields: null, userErrors: errors.list };
  }
  const writes: (Owner & { namespace: string; key: string; value: string; type: string })[] = [];
  const seen = new Set<string>();
  inputs.forEach((input, i) => {
    const before = errors.list.length;
    const owner = findOwner(ctx, input.ownerId);
    if (!owner) errors.add(i, "ownerId", `Owner ${input.ownerId} does not exist.`, "INVALID_VALUE");
    const ns = resolveNamespace(ctx, input.namespace);
    if ("error" in ns) {
      if (ns.error === "not_authorized") errors.add(i, "namespace", AUTH_MESSAGE, "APP_NOT_AUTHORIZED");
      else errors.add(i, "namespace", "Namespace must be 3-255 characters of letters, digits, hyphens and underscores.", "INVALID");
    }
    if (input.key.trim() === "") errors.add(i, "key", "Key can't be blank.", "BLANK");
    else if (input.key.length < 2) errors.add(i, "key", "Key is too short (minimum is 2 characters)", "TOO_SHORT");
    else if (input.key.length > 64) errors.add(i, "key", "Key is too long (maximum is 64 characters)", "TOO_LONG");
    else if (!KEY.test(input.key)) errors.add(i, "key", "Key contains one or more invalid characters.", "INVALID");
    if (errors.list.length > before || !owner || "error" in ns) return;
    const existing = ctx.store.metafield(owner.ownerType, owner.ownerId, ns.namespace, input.key);
    const type = input.type ?? existing?.type;
    if (type === undefined) {
      errors.add(i, "type", "Type can't be blank", "BLANK");
      return;
    }
    if (!TYPES.has(type)) {
      errors.add(i, "type", `Type '${type}' is not a supported metafield type.`, "INVALID_TYPE");
      return;
    }
    if (existing && existing.type !== type) {
      errors.add(i, "type", `Type '${type}' does not match the metafield's type '${existing.type}'.`, "INVALID_TYPE");
      return;
    }
    const limit = SIZE_LIMITS[type] ?? DEFAULT_SIZE_LIMIT;
    if (input.value.trim() === "") errors.add(i, "value", "Value can't be blank.", "BLANK");
    else if (Buffer.byteLength(input.value, "utf8") > limit) errors.add(i, "value", `Value is too long (maximum is ${limit} bytes).`, "TOO_LONG");
    else if (!validValue(type, input.value)) errors.add(i, "value", type === "json" ? "Value must be valid JSON." : `Value is invalid for type '${type}'.`, "INVALID_VALUE");
    if ("compareDigest" in input) {
      const current = existing ? compareDigest(existing) : null;
      if ((input.compareDigest ?? null) !== current) errors.add(i, null, "The resource has been updated since it was loaded. Try again with an updated `compareDigest` value.", "STALE_OBJECT");
    }
    const unique = `${owner.ownerType}:${owner.ownerId}\t${ns.namespace}\t${input.key}`;
    if (seen.has(unique)) errors.add(i, "key", "The same metafield is given more than once.", "TAKEN");
    seen.add(unique);
    if (errors.list.length === before) writes.push({ ...owner, namespace: ns.namespace, key: input.key, value: input.value, type });
  });
  // Atomic: one error and nothing is set.
  if (errors.list.length > 0) return { metafields: null, userErrors: errors.list };
  return { metafields: writes.map((write) => ctx.store.putMetafield(write)), userErrors: [] };
}

function metafieldsDelete(ctx: Context, inputs: readonly IdentifierInput[]) {
  const errors = new UserErrors();
  if (inputs.length === 0) errors.add(["metafields"], "At least one metafield identifier must be given.", "BLANK");
  if (inputs.length > MAX_METAFIELDS_PER_DELETE) errors.add(["metafields"], `At most ${MAX_METAFIELDS_PER_DELETE} metafields can be deleted at once.`, "TOO_BIG");
  const resolved = inputs.map((input, i) => {
    const ns = resolveNamespace(ctx, input.namespace);
    if ("error" in ns) {
      if (ns.error === "not_authorized") errors.add(["metafields", i, "namespace"], AUTH_MESSAGE, "APP_NOT_AUTHORIZED");
      else errors.add(["metafields", i, "namespace"], "Namespace is invalid.", "INVALID");
      return undefined;
    }
    return { ...input, namespace: ns.namespace };
  });
  if (errors.any) return { deletedMetafields: null, userErrors: errors.list };
  const deletedMetafields = resolved.map((input) => {
    if (!input) return null;
    const owner = findOwner(ctx, input.ownerId);
    if (!owner || !ctx.store.deleteMetafield(owner.ownerType, owner.ownerId, input.namespace, input.key)) return null;
    return { ownerId: input.ownerId, namespace: input.namespace, key: input.key };
  });
  return { deletedMetafields, userErrors: [] };
}

interface MetafieldArgs {
  namespace?: string | null;
  key: string;
}

interface MetafieldsArgs extends ConnectionArgs {
  namespace?: string | null;
  keys?: string[] | null;
}

/** An unresolvable or foreign namespace reads as nothing there, as the platform shows no other app's private data. */
function readMetafield(ctx: Context, ownerType: MetafieldOwnerType, ownerId: number, args: MetafieldArgs): Metafield | null {
  const ns = resolveNamespace(ctx, args.namespace);
  return "error" in ns ? null : (ctx.store.metafield(ownerType, ownerId, ns.namespace, args.key) ?? null);
}

function readMetafields(ctx: Context, ownerType: MetafieldOwnerType, ownerId: number, args: MetafieldsArgs) {
  const ns = args.namespace === undefined || args.namespace === null ? undefined : resolveNamespace(ctx, args.namespace);
  const own = `app--${ctx.appId}`;
  const rows = ctx.store.metafieldsOf(ownerType, ownerId).filter((m) => {
    if (ns && ("error" in ns || m.namespace !== ns.namespace)) return false;
    // Another app's reserved metafields are private to it.
    if (m.namespace.startsWith("app--") && m.namespace !== own && !m.namespace.startsWith(`${own}--`)) return false;
    return !args.keys || args.keys.includes(m.key);
  });
  return paginate(byId(rows), args);
}

export const metafieldResolvers: Resolvers = {
  Mutation: {
    metafieldsSet: (_: unknown, args: { metafields: SetInput[] }, ctx: Context) => metafieldsSet(ctx, args.metafields),
    metafieldsDelete: (_: unknown, args: { metafields: IdentifierInput[] }, ctx: Context) => metafieldsDelete(ctx, args.metafields),
  },
  Metafield: {
    compareDigest: (m: Metafield) => compareDigest(m),
  },
  Product: {
    metafield: (p: Product, args: MetafieldArgs, ctx: Context) => readMetafield(ctx, "PRODUCT", p.id, args),
    metafields: (p: Product, args: MetafieldsArgs, ctx: Context) => readMetafields(ctx, "PRODUCT", p.id, args),
  },
  ProductVariant: {
    metafield: (v: Variant, args: MetafieldArgs, ctx: Context) => readMetafield(ctx, "PRODUCTVARIANT", v.id, args),
    metafields: (v: Variant, args: MetafieldsArgs, ctx: Context) => readMetafields(ctx, "PRODUCTVARIANT", v.id, args),
  },
  Customer: {
    metafield: (c: Customer, args: MetafieldArgs, ctx: Context) => readMetafield(ctx, "CUSTOMER", c.id, args),
    metafields: (c: Customer, args: MetafieldsArgs, ctx: Context) => readMetafields(ctx, "CUSTOMER", c.id, args),
  },
  Shop: {
    metafield: (_: unknown, args: MetafieldArgs, ctx: Context) => readMetafield(ctx, "SHOP", SHOP_ID, args),
    metafields: (_: unknown, args: MetafieldsArgs, ctx: Context) => readMetafields(ctx, "SHOP", SHOP_ID, args),
  },
};

