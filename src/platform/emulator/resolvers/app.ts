import { GraphQLError } from "graphql";
import type { Context } from "../context.ts";
import { gid, parseGid } from "../ids.ts";
import type { Resolvers } from "./types.ts";
import { UserErrors } from "./user-errors.ts";

/**
 * The calling app's side of the platform: `currentAppInstallation { accessScopes }`,
 * `flowTriggerReceive` (recorded, as Flow would start the trigger's workflows), and
 * `translatableResource` for products, which needs read_translations as on the platform.
 */

/** The platform's limit on a Flow trigger's payload, in bytes of its JSON. */
export const MAX_FLOW_PAYLOAD_BYTES = 50_000;
/** A trigger extension's handle: at most 30 letters, digits and hyphens. */
const FLOW_HANDLE = /^[A-Za-z0-9-]{1,30}$/;

function accessDenied(field: string, scope: string): GraphQLError {
  return new GraphQLError(`Access denied for ${field} field. Required access: \`${scope}\` access scope.`, {
    extensions: { code: "ACCESS_DENIED", documentation: "https://shopify.dev/api/usage/access-scopes", requiredAccess: `\`${scope}\` access scope.` },
  });
}

interface FlowArgs {
  handle?: string | null;
  payload?: unknown;
  body?: string | null;
}

function flowTriggerReceive(ctx: Context, args: FlowArgs) {
  const errors = new UserErrors();
  let handle = args.handle ?? null;
  let payload = args.payload;
  if (args.body !== undefined && args.body !== null) {
    // The deprecated form: the whole request as a JSON string, { trigger_id | handle, properties }.
    try {
      const parsed = JSON.parse(args.body) as { handle?: string; trigger_id?: string; properties?: unknown };
      handle = parsed.handle ?? parsed.trigger_id ?? handle;
      payload = parsed.properties;
    } catch {
      errors.add(["body"], "Body is not valid JSON", "INVALID");
    }
  }
  if (!handle) errors.add(["handle"], "Handle can't be blank", "BLANK");
  else if (!FLOW_HANDLE.test(handle)) errors.add(["handle"], `Invalid handle '${handle}'`, "INVALID");
  if (payload === undefined || payload === null || typeof payload !== "object" || Array.isArray(payload)) {
    errors.add(["payload"], "Payload must be a JSON object", "INVALID");
  } else if (Buffer.byteLength(JSON.stringify(payload), "utf8") > MAX_FLOW_PAYLOAD_BYTES) {
    errors.add(["payload"], `Payload is too large (maximum is ${MAX_FLOW_PAYLOAD_BYTES / 1000} KB)`, "TOO_LONG");
  }
  // The platform's UserError has no code.
  if (errors.any) return { userErrors: errors.list.map(({ field, message }) => ({ field, message })) };
  ctx.app.flowTriggers.push({ handle: handle as string, payload, receivedAt: Date.now() });
  return { userErrors: [] };
}

const SCOPE_DESCRIPTIONS: Record<string, string> = { read_translations: "Read translations" };

function translatableResource(ctx: Context, resourceId: string) {
  if (!ctx.app.hasScope("read_translations")) throw accessDenied("translatableResource", "read_translations");
  const parsed = parseGid(resourceId);
  const product = parsed?.type === "Product" ? ctx.store.product(parsed.id) : undefined;
  if (!product) return null;
  return { resourceId: gid("Product", product.id), product };
}

interface ResourceView {
  resourceId: string;
  product: { title: string };
}

export const appResolvers: Resolvers = {
  QueryRoot: {
    currentAppInstallation: (_: unknown, __: unknown, ctx: Context) => ({
      id: gid("AppInstallation", ctx.appId),
      accessScopes: ctx.app.scopes().map((handle) => ({ handle, description: SCOPE_DESCRIPTIONS[handle] ?? handle.replaceAll("_", " ") })),
    }),
    translatableResource: (_: unknown, args: { resourceId: string }, ctx: Context) => translatableResource(ctx, args.resourceId),
  },
  Mutation: {
    flowTriggerReceive: (_: unknown, args: FlowArgs, ctx: Context) => flowTriggerReceive(ctx, args),
  },
  TranslatableResource: {
    translatableContent: (r: ResourceView) => [{ key: "title", value: r.product.title, digest: null, locale: "en" }],
    translations: (r: ResourceView, args: { locale: string }, ctx: Context) =>
      ctx.app.translations(r.resourceId, args.locale).map((t) => ({ ...t, locale: args.locale, outdated: false })),
  },
};
