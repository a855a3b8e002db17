import { SHOP_ID } from "../ids.ts";
import type { ShopInfo } from "../context.ts";
import type { Customer } from "../model.ts";

/**
 * The bodies of the app's lifecycle webhooks as Shopify sends them: app/uninstalled carries the
 * shop (its REST resource), the compliance topics `shop_id`, `shop_domain` and, for the customer
 * topics, the customer and their orders (shopify.dev, "Privacy law compliance").
 */

export function shopPayload(shop: ShopInfo, now: number) {
  const at = new Date(now).toISOString();
  return {
    id: SHOP_ID,
    name: shop.name,
    email: `owner@${shop.domain}`,
    domain: shop.domain,
    myshopify_domain: shop.domain,
    currency: shop.currencyCode,
    primary_locale: "en",
    plan_name: "partner_test",
    created_at: at,
    updated_at: at,
  };
}

function complianceCustomer(customer: Customer) {
  return { id: customer.id, email: customer.email, phone: customer.phone };
}

export function customersDataRequestPayload(shop: ShopInfo, customer: Customer, orders: readonly number[], dataRequestId: number) {
  return { shop_id: SHOP_ID, shop_domain: shop.domain, orders_requested: [...orders], customer: complianceCustomer(customer), data_request: { id: dataRequestId } };
}

export function customersRedactPayload(shop: ShopInfo, customer: Customer, orders: readonly number[]) {
  return { shop_id: SHOP_ID, shop_domain: shop.domain, customer: complianceCustomer(customer), orders_to_redact: [...orders] };
}

export function shopRedactPayload(shop: ShopInfo) {
  return { shop_id: SHOP_ID, shop_domain: shop.domain };
}
