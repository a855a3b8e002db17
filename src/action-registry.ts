import type { AnyAction } from "./core/action.ts";
import { Registry } from "./core/registry.ts";
import { ACCOUNT_ACTIONS } from "./account/actions/index.ts";
import { ACCOUNT_HELP_DOCS_ACTIONS } from "./account/actions/help-docs/index.ts";
import { ACCOUNT_INTEGRATIONS_ACTIONS } from "./account/actions/integrations/index.ts";
import { BACK_IN_STOCK_ACTIONS } from "./back_in_stock/actions/index.ts";
import { PREORDERS_OFFER_SCHEDULE_ACTIONS } from "./preorders/offers/actions/schedule/index.ts";
import { PREORDERS_SHOP_ACTIONS } from "./preorders/settings/actions/index.ts";
import { getLanguages, patchLanguages } from "./account/actions/languages.ts";
import { listLocations } from "./account/actions/locations.ts";
import { listMarkets } from "./account/actions/markets.ts";
import { setupAction } from "./account/actions/setup.ts";
import { backInStockSetupFacts } from "./back_in_stock/setup-facts.ts";
import { BACK_IN_STOCK_SIGNUPS_ACTIONS } from "./back_in_stock/signups/actions/index.ts";
import { bulkNotifySignups } from "./back_in_stock/signups/actions/bulk-notify.ts";
import { notifySignup } from "./back_in_stock/signups/actions/notify.ts";
import { getTemplate, patchTemplate } from "./back_in_stock/templates/actions/templates.ts";
import { previewTemplate } from "./back_in_stock/templates/actions/preview.ts";
import { help } from "./docs/actions/help.ts";
import { downloadExport } from "./exports/actions/download.ts";
import { getJob } from "./jobs/actions/get.ts";
import { PREORDERS_OFFERS_ACTIONS } from "./preorders/offers/actions/index.ts";
import { PREORDERS_ORDERS_ACTIONS } from "./preorders/orders/actions/index.ts";
import { PREORDERS_VARIANTS_ACTIONS } from "./preorders/variants/actions/index.ts";

export const ACTIONS: readonly AnyAction[] = [
  help,
  getJob,
  downloadExport,
  getLanguages,
  patchLanguages,
  listLocations,
  listMarkets,
  setupAction(backInStockSetupFacts),
  ...ACCOUNT_ACTIONS,
  ...ACCOUNT_HELP_DOCS_ACTIONS,
  ...ACCOUNT_INTEGRATIONS_ACTIONS,
  getTemplate,
  patchTemplate,
  previewTemplate,
  ...BACK_IN_STOCK_SIGNUPS_ACTIONS,
  notifySignup,
  bulkNotifySignups,
  ...BACK_IN_STOCK_ACTIONS,
  ...PREORDERS_OFFERS_ACTIONS,
  ...PREORDERS_OFFER_SCHEDULE_ACTIONS,
  ...PREORDERS_SHOP_ACTIONS,
  ...PREORDERS_ORDERS_ACTIONS,
  ...PREORDERS_VARIANTS_ACTIONS,
];

export function createRegistry(): Registry {
  return new Registry(ACTIONS);
}
