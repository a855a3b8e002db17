/**
 * The storefront widget, loaded by the theme's app embed (served by the service at
 * GET /storefront/widget.js, bundled by esbuild from this folder). It reads what the theme renders
 * into the page (types.ts) and shows the preorder button and its settings, or the back-in-stock
 * form, on a product page, and the badges on a collection page. No framework: a few DOM nodes.
 */
import { readJson } from "./dom.ts";
import { mountCollectionPage } from "./collection.ts";
import { mountProductPage } from "./product.ts";
import { Signals } from "./signals.ts";
import type { EmbedData, ProductData } from "./types.ts";

function start(): void {
  const embed = readJson<EmbedData>(document.getElementById("preorder-app-embed"));
  if (!embed) return;
  const signals = new Signals(embed.shop);
  const now = () => Date.now();
  if (embed.template === "collection") mountCollectionPage(embed, signals, now());
  else {
    const script = [...document.querySelectorAll("script[data-preorder-product]")].find((node) => !node.closest("[data-product-card]"));
    const product = readJson<ProductData>(script ?? null);
    if (product) mountProductPage(embed, product, signals, now);
    else signals.debug("no product data on this page");
  }
  signals.emit("preorder:loaded", { template: embed.template, locale: embed.locale });
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
