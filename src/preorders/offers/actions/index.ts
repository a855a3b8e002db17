import type { AnyAction } from "../../../core/action.ts";
import { offerStorefrontSize } from "../../sync/storefront-size.ts";
import { addSettingsCheck } from "../model.ts";
import { ADVANCED_ACTIONS } from "./advanced.ts";
import { CHECKOUT_ACTIONS } from "./checkout.ts";
import { COUNTDOWN_ACTIONS } from "./countdown.ts";
import { INTEGRATIONS_ACTIONS } from "./integrations.ts";
import { INVENTORY_ACTIONS } from "./inventory.ts";
import { LIMITS_ACTIONS } from "./limits.ts";
import { MARKETS_ACTIONS } from "./markets.ts";
import { OFFER_ACTIONS } from "./offers.ts";
import { PAYMENTS_ACTIONS } from "./payments.ts";
import { PRODUCTS_ACTIONS } from "./products.ts";
import { SHIPPING_ACTIONS } from "./shipping.ts";
import { TRANSLATIONS_ACTIONS } from "./translations.ts";
import { VARIANT_OVERRIDE_ACTIONS } from "./variant-overrides.ts";
import { listOfferVariants } from "./variants.ts";
import { WIDGET_ACTIONS } from "./widget.ts";

// Every change of an offer's settings must leave its storefront configuration within the
// platform's metafield (its groups cannot see the whole configuration; model.ts runs the check).
addSettingsCheck(offerStorefrontSize);

/** Actions of this part of the API; the registry lists them from here (src/action-registry.ts). */
export const PREORDERS_OFFERS_ACTIONS: readonly AnyAction[] = [
  ...OFFER_ACTIONS,
  ...WIDGET_ACTIONS,
  ...SHIPPING_ACTIONS,
  ...PAYMENTS_ACTIONS,
  ...LIMITS_ACTIONS,
  ...CHECKOUT_ACTIONS,
  ...INVENTORY_ACTIONS,
  ...PRODUCTS_ACTIONS,
  ...MARKETS_ACTIONS,
  ...COUNTDOWN_ACTIONS,
  ...INTEGRATIONS_ACTIONS,
  ...TRANSLATIONS_ACTIONS,
  ...ADVANCED_ACTIONS,
  listOfferVariants,
  ...VARIANT_OVERRIDE_ACTIONS,
];
