import { z } from "zod";
import type { Config } from "../config.ts";
import type { Db } from "../core/db.ts";
import { deepPartialStrict, mergeDeep } from "../core/deep-partial.ts";
import { type Issue, conflict, fieldIssue, unprocessable } from "../core/errors.ts";
import type { SecretBox } from "../core/secrets.ts";
import { loadBackInStockSettings, updateBackInStockSettings } from "../back_in_stock/settings/settings.ts";
import { enqueueShopConfigSync } from "../storefront/enqueue.ts";
import { FLOW_TRIGGERS } from "./flow/triggers.ts";
import { type ConnectionRow, type Connections, isConnected, isVerified, loadConnections, openCredential, saveConnection, syncsTo } from "./connections.ts";
import { type ProviderConfig, providerAdapter } from "./index.ts";
import { type Audience, type EmailProvider, ProviderError } from "./types.ts";


/** The plain switches, one deep-partial document per shop (account_integrations.settings). */
const switchesSchema = z.strictObject({
  ad_pixel: z.strictObject({ enabled: z.boolean().describe("Send signup events to the advertising pixel") }),
  flow_triggers: z.strictObject({
    enabled: z.boolean().describe("Send the chosen events to the store platform's automation flows"),
    triggers: z.array(z.enum(FLOW_TRIGGERS)).max(FLOW_TRIGGERS.length).describe("The events sent; a PATCH replaces the whole list"),
  }),
  split_order_app: z.strictObject({ enabled: z.boolean().describe("Let the split-order app handle preorder items") }),
});
type Switches = z.output<typeof switchesSchema>;

const DEFAULT_SWITCHES: Switches = {
  ad_pixel: { enabled: false },
  flow_triggers: { enabled: false, triggers: [] },
  split_order_app: { enabled: false },
};

const apiKey = z.string().trim().max(500).describe("Write-only; an empty string removes the saved key");
const listId = z.string().trim().min(1).max(200);

export const integrationsPatchSchema = z.strictObject({
  email_provider_1: z.strictObject({ sync_enabled: z.boolean().optional() }).optional().describe("Connected by OAuth from the app's Integrations page; this only turns its sync on or off"),
  email_provider_2: z.strictObject({ api_key: apiKey.optional(), list_id: listId.nullable().optional(), sync_enabled: z.boolean().optional() }).optional(),
  email_provider_3: z
    .strictObject({ api_key: apiKey.optional().describe("Checked by fetching the account's audiences; not saved when refused"), list_id: listId.optional().describe("One of the account's audiences"), sync_enabled: z.boolean().optional() })
    .optional(),
  commerce_platform: z.strictObject({ sync_enabled: z.boolean().optional().describe("Tag the platform customer of each new signup with sync_customers_tag") }).optional(),
  sync_customers_tag: z.string().trim().min(1).max(255).optional().describe("The tag added to platform customers who sign up"),
  ad_pixel: (deepPartialStrict(switchesSchema.shape.ad_pixel) as z.ZodType<Partial<Switches["ad_pixel"]>>).optional(),
  flow_triggers: (deepPartialStrict(switchesSchema.shape.flow_triggers) as z.ZodType<Partial<Switches["flow_triggers"]>>).optional(),
  split_order_app: (deepPartialStrict(switchesSchema.shape.split_order_app) as z.ZodType<Partial<Switches["split_order_app"]>>).optional(),
});
type IntegrationsPatch = z.output<typeof integrationsPatchSchema>;

const flags = { connected: z.boolean(), verified: z.boolean().describe("the provider accepted the saved credential the last time it was used"), sync_enabled: z.boolean() };

/** What GET and PATCH answer: connection flags and switches, never a key or a token. */
export const integrationsOutput = z.strictObject({
  email_provider_1: z.strictObject({ ...flags, list_id: z.string().nullable().describe("the audience signups go to (chosen when connecting)") }),
  email_provider_2: z.strictObject({ ...flags, list_id: z.string().nullable() }),
  email_provider_3: z.strictObject({ ...flags, list_id: z.string().nullable().describe("the selected audience"), list_name: z.string().nullable() }),
  sms_provider: z.strictObject({ connected: z.boolean().describe("text messages go through the provider (configured on the service), not to local files") }),
  commerce_platform: z.strictObject({ connected: z.boolean().describe("the shop is connected to the store platform"), sync_enabled: z.boolean() }),
  sync_customers_tag: z.string(),
  signup_sync_targets: z.array(z.enum(["email_provider_1", "email_provider_2", "email_provider_3", "commerce_platform"])).describe("where each new signup is synced now"),
  ad_pixel: switchesSchema.shape.ad_pixel,
  flow_triggers: switchesSchema.shape.flow_triggers,
  split_order_app: switchesSchema.shape.split_order_app,
});
type IntegrationsSnapshot = z.output<typeof integrationsOutput>;

async function loadSwitches(db: Db, shopId: string, lock = false): Promise<Switches> {
  const { rows } = await db.query<{ settings: unknown }>(`select settings from account_integrations where shop_id = $1 ${lock ? "for update" : ""}`, [shopId]);
  const parsed = switchesSchema.safeParse(mergeDeep(DEFAULT_SWITCHES, rows[0]?.settings ?? {}, switchesSchema));
  if (!parsed.success) throw new Error(`account integrations of shop ${shopId} are invalid`);
  return parsed.data;
}

/** The ad_pixel switch, as the storefront configuration carries it (src/storefront/build.ts). */
export async function loadAdPixel(db: Db, shopId: string): Promise<Switches["ad_pixel"]> {
  return (await loadSwitches(db, shopId)).ad_pixel;
}

/** Whether the split-order app splits this shop's preorder orders (the service then only asks it to, decision 0204). */
export async function splitOrderAppEnabled(db: Db, shopId: string): Promise<boolean> {
  return (await loadSwitches(db, shopId)).split_order_app.enabled;
}

interface IntegrationTargets {
  connections: Connections;
  /** commerce_platform: tagging on (the back-in-stock settings' tagging group). */
  tagging: { enabled: boolean; customer_tag: string };
}

/** Where a new signup of this shop is synced: the providers with sync on, and the platform tag. */
export async function loadSyncTargets(db: Db, shopId: string): Promise<IntegrationTargets> {
  // One after the other: `db` may be a transaction's client, which runs one query at a time.
  const connections = await loadConnections(db, shopId);
  const settings = await loadBackInStockSettings(db, shopId);
  return { connections, tagging: settings.tagging };
}

/** The snapshot of GET /account/integrations. */
export async function integrationsSnapshot(db: Db, config: Pick<Config, "TWILIO_ACCOUNT_SID" | "TWILIO_AUTH_TOKEN">, shopId: string): Promise<IntegrationsSnapshot> {
  const connections = await loadConnections(db, shopId);
  const switches = await loadSwitches(db, shopId);
  const settings = await loadBackInStockSettings(db, shopId);
  const shop = await db.query<{ connected: boolean }>("select platform_graphql_url is not null as connected from shops where id = $1", [shopId]);
  const base = (row: ConnectionRow) => ({ connected: isConnected(row), verified: isVerified(row), sync_enabled: row.sync_enabled, list_id: row.list_id });
  const targets: IntegrationsSnapshot["signup_sync_targets"] = [];
  for (const row of Object.values(connections)) if (syncsTo(row)) targets.push(row.provider);
  if (settings.tagging.enabled) targets.push("commerce_platform");
  return {
    email_provider_1: base(connections.email_provider_1),
    email_provider_2: base(connections.email_provider_2),
    email_provider_3: { ...base(connections.email_provider_3), list_name: connections.email_provider_3.list_name },
    sms_provider: { connected: Boolean(config.TWILIO_ACCOUNT_SID && config.TWILIO_AUTH_TOKEN) },
    commerce_platform: { connected: shop.rows[0]?.connected ?? false, sync_enabled: settings.tagging.enabled },
    sync_customers_tag: settings.tagging.customer_tag,
    signup_sync_targets: targets,
    ad_pixel: switches.ad_pixel,
    flow_triggers: switches.flow_triggers,
    split_order_app: switches.split_order_app,
  };
}

/**
 * The account's audiences with this credential, for a PATCH: a refusal or an unreachable provider
 * is a 422 on `field` (nothing is saved).
 */
async function audiencesFor(config: ProviderConfig, provider: EmailProvider, credential: string, field: string): Promise<Audience[]> {
  try {
    return await providerAdapter(config, provider).listAudiences(credential);
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    if (error.kind === "refused") throw unprocessable([fieldIssue(field, `was refused by ${provider}`)]);
    throw unprocessable([fieldIssue(field, `could not be checked: ${error.message}; nothing was saved, try again`)]);
  }
}

interface PatchDeps {
  db: Db;
  config: ProviderConfig;
  secrets: SecretBox;
  shopId: string;
}

/** email_provider_3: the key checked against the provider, list_id one of the account's audiences. */
async function patchProvider3(deps: PatchDeps, current: ConnectionRow, patch: NonNullable<IntegrationsPatch["email_provider_3"]>, problems: Issue[]): Promise<ConnectionRow> {
  const next: ConnectionRow = { ...current };
  const removing = patch.api_key === "";
  const newKey = patch.api_key !== undefined && patch.api_key !== "" ? patch.api_key : undefined;
  if (removing) Object.assign(next, { credential: null, list_id: null, list_name: null, sync_enabled: false, verified_at: null, refused_at: null, connected_at: null });
  const key = newKey ?? (removing ? undefined : openCredential(deps.secrets, current));
  const mustCheckList = patch.list_id !== undefined || newKey !== undefined;
  if (mustCheckList && key === undefined) {
    problems.push(fieldIssue("email_provider_3.list_id", "needs email_provider_3.api_key: no key is saved"));
    return next;
  }
  if (key !== undefined && mustCheckList) {
    const audiences = await audiencesFor(deps.config, "email_provider_3", key, newKey !== undefined ? "email_provider_3.api_key" : "email_provider_3.list_id");
    if (newKey !== undefined) Object.assign(next, { credential: deps.secrets.seal(newKey), verified_at: new Date(), refused_at: null, connected_at: new Date() });
    const wanted = patch.list_id ?? current.list_id;
    const audience = audiences.find((a) => a.id === wanted);
    if (audience) {
      next.list_id = audience.id;
      next.list_name = audience.name;
    } else if (patch.list_id !== undefined || (current.sync_enabled && patch.sync_enabled !== false) || patch.sync_enabled === true) {
      problems.push(fieldIssue("email_provider_3.list_id", `must be one of: ${audiences.map((a) => a.id).join(", ")}`));
    } else {
      // Another account's key: the old audience is not one of its own.
      next.list_id = next.list_name = null;
    }
  }
  if (patch.sync_enabled !== undefined) next.sync_enabled = patch.sync_enabled;
  if (next.sync_enabled && next.credential === null) problems.push(fieldIssue("email_provider_3.sync_enabled", "needs email_provider_3.api_key"));
  else if (next.sync_enabled && next.list_id === null && !problems.some((p) => p.path === "email_provider_3.list_id")) problems.push(fieldIssue("email_provider_3.list_id", "is required when sync_enabled is true"));
  return next;
}

/** email_provider_2: the key is saved as given (verified by its first use), the list as given. */
function patchProvider2(deps: PatchDeps, current: ConnectionRow, patch: NonNullable<IntegrationsPatch["email_provider_2"]>, problems: Issue[]): ConnectionRow {
  const next: ConnectionRow = { ...current };
  if (patch.api_key === "") Object.assign(next, { credential: null, sync_enabled: false, verified_at: null, refused_at: null, connected_at: null });
  else if (patch.api_key !== undefined) Object.assign(next, { credential: deps.secrets.seal(patch.api_key), verified_at: null, refused_at: null, connected_at: new Date() });
  if (patch.list_id !== undefined) Object.assign(next, { list_id: patch.list_id, list_name: null });
  if (patch.sync_enabled !== undefined) next.sync_enabled = patch.sync_enabled;
  if (next.sync_enabled && next.credential === null) problems.push(fieldIssue("email_provider_2.sync_enabled", "needs email_provider_2.api_key"));
  else if (next.sync_enabled && next.list_id === null) problems.push(fieldIssue("email_provider_2.list_id", "is required when sync_enabled is true"));
  return next;
}

/**
 * Applies PATCH /account/integrations in the caller's transaction: every rule is checked before
 * anything is written (a 422 or 409 saves nothing). The provider check of email_provider_3 is an
 * HTTP call made inside the transaction, bounded by PROVIDER_TIMEOUT_MS.
 */
export async function patchIntegrations(deps: PatchDeps, patch: IntegrationsPatch): Promise<void> {
  const { db, shopId } = deps;
  const connections = await loadConnections(db, shopId, true);
  const problems: Issue[] = [];
  const changed: ConnectionRow[] = [];

  if (patch.email_provider_1?.sync_enabled !== undefined) {
    const current = connections.email_provider_1;
    if (patch.email_provider_1.sync_enabled && (!isConnected(current) || current.list_id === null)) {
      throw conflict("email_provider_1 is not connected; connect it by OAuth from the app's Integrations page first");
    }
    changed.push({ ...current, sync_enabled: patch.email_provider_1.sync_enabled });
  }
  if (patch.email_provider_2) changed.push(patchProvider2(deps, connections.email_provider_2, patch.email_provider_2, problems));
  if (patch.email_provider_3) changed.push(await patchProvider3(deps, connections.email_provider_3, patch.email_provider_3, problems));
  if (problems.length > 0) throw unprocessable(problems);

  for (const row of changed) await saveConnection(db, shopId, row);
  const tagging: Record<string, unknown> = {};
  if (patch.commerce_platform?.sync_enabled !== undefined) tagging.enabled = patch.commerce_platform.sync_enabled;
  if (patch.sync_customers_tag !== undefined) tagging.customer_tag = patch.sync_customers_tag;
  if (Object.keys(tagging).length > 0) await updateBackInStockSettings(db, shopId, { tagging });

  const switchesPatch: Record<string, unknown> = {};
  for (const key of ["ad_pixel", "flow_triggers", "split_order_app"] as const) if (patch[key] !== undefined) switchesPatch[key] = patch[key];
  if (Object.keys(switchesPatch).length > 0) {
    await db.query("insert into account_integrations (shop_id) values ($1) on conflict (shop_id) do nothing", [shopId]);
    const { rows } = await db.query<{ settings: unknown }>("select settings from account_integrations where shop_id = $1 for update", [shopId]);
    const stored = mergeDeep(rows[0]?.settings ?? {}, switchesPatch, switchesSchema) as { flow_triggers?: { triggers?: string[] } };
    if (stored.flow_triggers?.triggers) stored.flow_triggers.triggers = [...new Set(stored.flow_triggers.triggers)];
    await db.query("update account_integrations set settings = $2, updated_at = now() where shop_id = $1", [shopId, JSON.stringify(stored)]);
  }
  // The widget reads ad_pixel from the shop's storefront configuration metafield.
  if (patch.ad_pixel !== undefined) await enqueueShopConfigSync(db, shopId);
}
