import { readFileSync } from "node:fs";
import { buildSchema, parse, validate } from "graphql";
import * as appOperations from "/work/main/src/platform/operations/app.ts";
import * as customers from "/work/main/src/platform/operations/customers.ts";
import * as fulfillmentOrders from "/work/main/src/platform/operations/fulfillment-orders.ts";
import * as inventory from "/work/main/src/platform/operations/inventory.ts";
import * as metafields from "/work/main/src/platform/operations/metafields.ts";
import * as orderSplits from "/work/main/src/platform/operations/order-splits.ts";
import * as orders from "/work/main/src/platform/operations/orders.ts";
import * as sellingPlans from "/work/main/src/platform/operations/selling-plans.ts";
import * as tags from "/work/main/src/platform/operations/tags.ts";
import * as variantPolicies from "/work/main/src/platform/operations/variant-policies.ts";
import * as catalog from "/work/main/src/platform/catalog.ts";
const t0 = performance.now();
const schema = buildSchema(readFileSync("/work/shared/platform/admin-2026-07.graphql", "utf8"));
console.log("build ms", performance.now() - t0);
const docs = [appOperations, customers, fulfillmentOrders, inventory, metafields, orderSplits, orders, sellingPlans, tags, variantPolicies, catalog].flatMap((m) => Object.entries(m).filter((e): e is [string, string] => typeof e[1] === "string" && /^\s*(query|mutation) /.test(e[1])));
console.log("docs", docs.length);
for (const [name, d] of docs) { const errs = validate(schema, parse(d)).map((e) => e.message); if (errs.length) console.log(name, errs); }
