import type { AnyAction } from "../core/action.ts";
import { Registry } from "../core/registry.ts";
import { ACCOUNT_ACTIONS } from "./account/index.ts";
import { ACCOUNT_HELP_DOCS_ACTIONS } from "./account/help-docs/index.ts";
import { ACCOUNT_INTEGRATIONS_ACTIONS } from "./account/integrations/index.ts";
import { BACK_IN_STOCK_ACTIONS } from "./back_in_stock/index.ts";
import { PREORDERS_OFFER_SCHEDULE_ACTIONS } from "./preorders/offers/schedule/index.ts";
import { PREORDERS_SHOP_ACTIONS } from "./preorders/shop/index.ts";
import { getLanguages, patchLanguages } from "./account/languages.ts";
import { listLocations } from "./account/locations.ts";
import { listMarkets } from "./account/markets.ts";
import { getSetup } from "./account/setup.ts";
import { BACK_IN_STOCK_SIGNUPS_ACTIONS } from "./back_in_stock/signups/index.ts";
import { bulkNotifySignups } from "./back_in_stock/signups/bulk-notify.ts";
import { notifySignup } from "./back_in_stock/signups/notify.ts";
import { getTemplate, patchTemplate } from "./back_in_stock/templates.ts";
import { previewTemplate } from "./back_in_stock/template-preview.ts";
import { help } from "./discovery/help.ts";
import { downloadExport } from "./exports/download.ts";
import { getJob } from "./jobs/get.ts";
import { PREORDERS_OFFERS_ACTIONS } from "./preorders/offers/index.ts";
import { PREORDERS_ORDERS_ACTIONS } from "./preorders/orders/index.ts";
import { PREORDERS_VARIANTS_ACTIONS } from "./preorders/variants/index.ts";

export const ACTIONS: readonly AnyAction[] = [
  help,
  getJob,
  downloadExport,
  getLanguages,
  patchLanguages,
  listLocations,
  listMarkets,
  getSetup,
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
