import type { Db } from "../core/db.ts";
import { type CatalogReadiness, type PlatformConnectionState, catalogReadiness } from "../catalog/readiness.ts";

/**
 * The onboarding checklist of GET /account/setup, computed from facts already in the database on
 * every read (nothing is stored): each step is done or not because of what the shop has.
 */

/**
 * What the back-in-stock area tells the checklist: its channels switched on and whether its first
 * alert stage is. The area loads them (src/back_in_stock/setup-facts.ts); account, below it, does
 * not import it, so the registry passes the loader in.
 */
export interface BackInStockSetupFacts {
  channels: readonly ("email" | "sms")[];
  initialStageOn: boolean;
}
export type LoadBackInStockSetupFacts = (db: Db, shopId: string) => Promise<BackInStockSetupFacts>;

interface SetupStep {
  key: string;
  title: string;
  done: boolean;
  detail: string;
}

interface Setup {
  platform: PlatformConnectionState;
  catalog: CatalogReadiness;
  steps: SetupStep[];
  completed: number;
  total: number;
}

export const SETUP_STEP_KEYS = [
  "platform_connected",
  "catalog_mirrored",
  "offer_created",
  "offer_live",
  "back_in_stock_channels",
  "template_customized",
  "sending_configured",
  "integrations_connected",
] as const;

interface Facts {
  offers: number;
  live_offers: number;
  enabled_offers: number;
  bis_templates: number;
  layout_customized: boolean;
  sending_set: boolean;
  contact_email_set: boolean;
  integrations: string[];
}

function catalogDetail(catalog: CatalogReadiness): string {
  switch (catalog.status) {
    case "ready":
      return `${catalog.variants_mirrored} variants of ${catalog.products_mirrored} products mirrored`;
    case "syncing":
      return `the first full sync is running: ${catalog.sync_job?.processed ?? 0} variants so far`;
    case "failed":
      return `the first full sync failed${catalog.sync_job?.last_error ? `: ${catalog.sync_job.last_error}` : ""}; it is retried`;
    default:
      return "no catalog sync has run yet";
  }
}

export async function setupChecklist(db: Db, shopId: string, loadBackInStock: LoadBackInStockSetupFacts): Promise<Setup> {
  const { platform, catalog } = await catalogReadiness(db, shopId);
  const { rows } = await db.query<Facts>(
    `select (select count(*) from preorder_offers where shop_id = $1 and deleted_at is null)::int as offers,
            (select count(*) from preorder_offers where shop_id = $1 and deleted_at is null and status = 'active' and sync_status = 'synced')::int as live_offers,
            (select count(*) from preorder_offers where shop_id = $1 and deleted_at is null and status = 'active')::int as enabled_offers,
            (select count(*) from message_templates where shop_id = $1 and area = 'back_in_stock')::int as bis_templates,
            coalesce((select email_layout <> '{}'::jsonb from account_settings where shop_id = $1), false) as layout_customized,
            coalesce((select exists (select 1 from jsonb_each(sending) where value <> 'null'::jsonb) from account_settings where shop_id = $1), false) as sending_set,
            coalesce((select settings ? 'contact_email' and settings->'contact_email' <> 'null'::jsonb from account_settings where shop_id = $1), false) as contact_email_set,
            array(select provider from integration_connections where shop_id = $1 and credential is not null order by provider) as integrations`,
    [shopId],
  );
  const facts = rows[0];
  if (!facts) throw new Error("setup facts query returned no row");
  const { channels, initialStageOn } = await loadBackInStock(db, shopId);

  const steps: SetupStep[] = [
    {
      key: "platform_connected",
      title: "Connect the store platform",
      done: platform.connected,
      detail: platform.connected ? `connected to ${platform.domain ?? "the store"}` : "the app is not connected to the store platform",
    },
    { key: "catalog_mirrored", title: "Mirror the catalog", done: catalog.status === "ready", detail: catalogDetail(catalog) },
    {
      key: "offer_created",
      title: "Create a preorder offer",
      done: facts.offers > 0,
      detail: facts.offers > 0 ? `${facts.offers} offer${facts.offers === 1 ? "" : "s"}` : "no preorder offer yet (POST /preorders/offers)",
    },
    {
      key: "offer_live",
      title: "Enable an offer and sync it to the store",
      done: facts.live_offers > 0,
      detail:
        facts.live_offers > 0
          ? `${facts.live_offers} active offer${facts.live_offers === 1 ? "" : "s"} synced`
          : facts.enabled_offers > 0
            ? "an offer is enabled but not synced to the store platform yet"
            : "no offer is enabled (POST /preorders/offers/{id}/enable)",
    },
    {
      key: "back_in_stock_channels",
      title: "Turn on back-in-stock alerts",
      done: channels.length > 0 && initialStageOn,
      detail: !initialStageOn
        ? "the initial alert stage is switched off"
        : channels.length > 0
          ? `alerts go out by ${channels.join(" and ")}`
          : "both channels are switched off in the back-in-stock settings",
    },
    {
      key: "template_customized",
      title: "Customize a message template or the e-mail layout",
      done: facts.bis_templates > 0 || facts.layout_customized,
      detail:
        facts.bis_templates > 0 || facts.layout_customized
          ? [facts.bis_templates > 0 ? `${facts.bis_templates} customized template${facts.bis_templates === 1 ? "" : "s"}` : "", facts.layout_customized ? "customized e-mail layout" : ""]
              .filter(Boolean)
              .join(", ")
          : "the shipped templates and layout are in use",
    },
    {
      key: "sending_configured",
      title: "Set who messages come from",
      done: facts.sending_set || facts.contact_email_set,
      detail: facts.sending_set || facts.contact_email_set ? "sender settings saved" : "messages use the store name and the service's sending address (PATCH /account/sending)",
    },
    {
      key: "integrations_connected",
      title: "Connect an e-mail marketing provider",
      done: facts.integrations.length > 0,
      detail: facts.integrations.length > 0 ? `connected: ${facts.integrations.join(", ")}` : "no e-mail provider connected (PATCH /account/integrations)",
    },
  ];
  return { platform, catalog, steps, completed: steps.filter((s) => s.done).length, total: steps.length };
}
