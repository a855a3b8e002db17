import type { AnyAction } from "../../core/action.ts";
import { listDataRequests } from "./data-requests.ts";
import { getPlanUsage } from "./plan-usage.ts";
import { getCatalogProduct, searchCatalogProducts } from "./products.ts";
import { getSending, patchSending } from "./sending.ts";
import { getAccountSettings, patchAccountSettings } from "./settings.ts";
import { getEmailLayout, patchEmailLayout, previewEmailLayout } from "./templates.ts";
import { getTranslations, listTranslations, patchTranslations } from "./translations.ts";

/** Account: plan usage, customer data requests, products, sending, settings, templates, translations. */
export const ACCOUNT_ACTIONS: readonly AnyAction[] = [
  getPlanUsage,
  listDataRequests,
  searchCatalogProducts,
  getCatalogProduct,
  getSending,
  patchSending,
  getAccountSettings,
  patchAccountSettings,
  getEmailLayout,
  patchEmailLayout,
  previewEmailLayout,
  listTranslations,
  getTranslations,
  patchTranslations,
];
