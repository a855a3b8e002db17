import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Liquid, Tag, type TagToken, type TopLevelToken, type Liquid as LiquidEngine } from "liquidjs";

/**
 * The emulator's theme: Liquid templates rendered with liquidjs, as a store's theme renders its
 * pages. The product page has what themes have and the widget works with: the price, the variant
 * selector in the add-to-cart form (`id`), a hidden `selling_plan` input, the quantity, the add to
 * cart and buy-now buttons. The app embed block renders the app's metafields as JSON script tags
 * and loads the app's script. `Shopify.analytics.publish` records what is published, so a test
 * can read the customer events (`window.Shopify.analytics.published`).
 *
 * A product page can also be rendered with an alternate template, as the platform renders
 * `product.<suffix>` for `?view=<suffix>` (or a product assigned to it): `product.ajax` is a theme
 * that adds to the cart with its own script through the Ajax API, so its product form posts to
 * `/cart/add.js` and the usual selector (`form[action$="/cart/add"]`) does not find it: the shop's
 * `storefront.selectors.product_form` has to name it.
 */
/** The theme app extension's folder: its blocks, and its snippets, which `{% render %}` finds. */
const EXTENSION = new URL("../../../../extensions/preorder-widget/", import.meta.url);
const engine = new Liquid({ strictFilters: true, root: [fileURLToPath(new URL("snippets/", EXTENSION))], extname: ".liquid" });
engine.registerFilter("money", (cents: number) => `$${(Number(cents) / 100).toFixed(2)}`);
// The app embed's JSON sits inside script tags: `<` escaped so a value holding `</script>` cannot end one.
engine.registerFilter("json", (value: unknown) => JSON.stringify(value ?? null).replace(/</g, "\\u003c"));
// A theme app extension's asset: where the page's scope (`app_assets`) says it is served.
engine.registerFilter("asset_url", function (this: { context: { getSync(paths: PropertyKey[]): unknown } }, name: string) {
  const assets = this.context.getSync(["app_assets"]) as Record<string, string> | undefined;
  return assets?.[name] ?? "";
});

/** `{% schema %}...{% endschema %}`: a block's settings for the theme editor; renders nothing. */
class SchemaTag extends Tag {
  constructor(token: TagToken, remainTokens: TopLevelToken[], liquid: LiquidEngine) {
    super(token, remainTokens, liquid);
    while (remainTokens.length > 0) {
      const next = remainTokens.shift();
      if (next && "name" in next && next.name === "endschema") return;
    }
    throw new Error("{% schema %} without {% endschema %}");
  }
  *render(): Generator<unknown, void, unknown> {
    // The schema is for the theme editor, not the page.
  }
}
engine.registerTag("schema", SchemaTag);

/**
 * The app's theme app extension (extensions/preorder-widget/): its app embed block, the very file
 * `shopify app deploy` uploads, rendered at the end of every page while the app is installed
 * (`app_embed_url` set), with the Liquid objects it reads as Shopify's (routes.ts, liquid-objects.ts):
 * `shop.metafields`, `product` with its `variants` and their `metafields`, `request.locale`,
 * `localization.market`, `template.name`, and its asset at `app_embed_url`. The theme's own
 * templates render no app data: what the widget reads of the product is the embed's.
 */
const APP_EMBED_BLOCK = readFileSync(new URL("blocks/app-embed.liquid", EXTENSION), "utf8");

const LAYOUT_HEAD = `<!doctype html>
<html lang="{{ locale | escape }}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ title | escape }} – {{ shop.name | escape }}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 0; color: #1a1a1a; }
header { display: flex; justify-content: space-between; padding: 16px 32px; border-bottom: 1px solid #ddd; }
header a { color: inherit; text-decoration: none; font-weight: 600; }
main { max-width: 720px; margin: 32px auto; padding: 0 32px; }
.price { font-size: 1.4em; margin: 8px 0 16px; }
form#product-form { display: grid; gap: 12px; max-width: 420px; }
:root { --preorder-max-width: 420px; }
form#product-form button { padding: 12px; font-size: 1em; cursor: pointer; border: 1px solid #1a1a1a; background: #1a1a1a; color: #fff; border-radius: 6px; }
button:disabled { opacity: 0.5; cursor: not-allowed; }
.shopify-payment-button button { background: #5a31f4; border-color: #5a31f4; }
.errors { color: #b00020; }
.cards { display: grid; grid-template-columns: repeat(3, 1fr); gap: 16px; }
.cards article { border: 1px solid #ddd; padding: 12px; }
table { border-collapse: collapse; width: 100%; } td, th { border-bottom: 1px solid #eee; padding: 8px; text-align: left; }
</style>
<script>
window.Shopify = window.Shopify || {};
window.Shopify.analytics = { published: [], publish: function (name, data) { this.published.push({ name: name, data: data }); } };
</script>
</head>
<body>
<header><a href="/">{{ shop.name | escape }}</a><a href="/cart" data-cart-link>Cart</a></header>
`;

const APP_EMBED = `{% if app_embed_url %}${APP_EMBED_BLOCK}{% endif %}
</body>
</html>`;

const PRODUCT = `${LAYOUT_HEAD}<main class="product" data-product-id="{{ product.id }}">
<h1>{{ product.title | escape }}</h1>
<p class="price" data-product-price>{{ variant.price | money }}</p>
<form method="post" action="/cart/add" id="product-form">
  <label>Variant
  <select name="id" data-variant-selector>
  {% for v in product.variants %}<option value="{{ v.id }}" data-price="{{ v.price }}" data-available="{{ v.available }}"{% if v.id == variant.id %} selected{% endif %}>{{ v.title | escape }}{% unless v.available %} (sold out){% endunless %}</option>
  {% endfor %}</select></label>
  <input type="hidden" name="selling_plan" value="">
  <label>Quantity <input type="number" name="quantity" value="1" min="1"></label>
  <button type="submit" name="add"{% unless variant.available %} disabled{% endunless %}>{% if variant.available %}Add to cart{% else %}Sold out{% endif %}</button>
  <div class="shopify-payment-button" data-dynamic-checkout><button type="button">Buy it now</button></div>
</form>
</main>
<script>
(function () {
  var select = document.querySelector("[data-variant-selector]");
  select.addEventListener("change", function () {
    var option = select.selectedOptions[0];
    if (!option) return;
    var available = option.dataset.available === "true";
    document.querySelector("[data-product-price]").textContent = "$" + (Number(option.dataset.price) / 100).toFixed(2);
    var add = document.querySelector("button[name=add]");
    add.disabled = !available;
    add.textContent = available ? "Add to cart" : "Sold out";
    var url = new URL(location.href); url.searchParams.set("variant", option.value); history.replaceState(null, "", url);
  });
})();
</script>
${APP_EMBED}`;

const PRODUCT_AJAX = `${LAYOUT_HEAD}<main class="product product--ajax" data-product-id="{{ product.id }}">
<h1>{{ product.title | escape }}</h1>
<p class="price" data-product-price>{{ variant.price | money }}</p>
<form method="post" action="/cart/add.js" class="ajax-product-form" data-ajax-product-form>
  <label>Style
  <select name="id">
  {% for v in product.variants %}<option value="{{ v.id }}" data-price="{{ v.price }}" data-available="{{ v.available }}"{% if v.id == variant.id %} selected{% endif %}>{{ v.title | escape }}{% unless v.available %} (sold out){% endunless %}</option>
  {% endfor %}</select></label>
  <input type="hidden" name="selling_plan" value="">
  <label>Qty <input type="number" name="quantity" value="1" min="1"></label>
  <button type="submit" name="add">Add to bag</button>
</form>
</main>
<script>
(function () {
  var form = document.querySelector("[data-ajax-product-form]");
  var select = form.querySelector("select[name=id]");
  select.addEventListener("change", function () {
    var option = select.selectedOptions[0];
    if (!option) return;
    document.querySelector("[data-product-price]").textContent = "$" + (Number(option.dataset.price) / 100).toFixed(2);
    var url = new URL(location.href); url.searchParams.set("variant", option.value); history.replaceState(null, "", url);
  });
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    fetch(form.action, { method: "POST", body: new URLSearchParams(new FormData(form)) }).then(function () { location.href = "/cart"; });
  });
})();
</script>
${APP_EMBED}`;

const COLLECTION = `${LAYOUT_HEAD}<main class="collection">
<h1>{{ collection.title | escape }}</h1>
<div class="cards">
{% for card in cards %}<article data-product-card>
  <h3 data-card-title><a href="{{ card.url }}">{{ card.title | escape }}</a></h3>
  <p class="price">{{ card.price | money }}</p>
</article>
{% endfor %}</div>
</main>
${APP_EMBED}`;

const CART = `${LAYOUT_HEAD}<main class="cart">
<h1>Your cart</h1>
{% if errors.size > 0 %}<ul class="errors" data-checkout-errors>{% for e in errors %}<li>{{ e.localizedMessage | escape }}</li>{% endfor %}</ul>{% endif %}
{% if cart.items.size == 0 %}<p>Your cart is empty.</p>{% else %}
<table data-cart-lines><tr><th>Item</th><th>Plan</th><th>Quantity</th><th>Price</th></tr>
{% for item in cart.items %}<tr data-line-variant="{{ item.variant_id }}"><td>{{ item.title | escape }}</td><td>{% if item.selling_plan_allocation %}{{ item.selling_plan_allocation.selling_plan.name | escape }}{% endif %}</td><td>{{ item.quantity }}</td><td>{{ item.line_price | money }}</td></tr>
{% endfor %}</table>
<form method="post" action="/checkout" id="checkout-form">
  <label>E-mail <input type="email" name="email" value="shopper@example.com"></label>
  <button type="submit">Check out</button>
</form>{% endif %}
</main>
${APP_EMBED}`;

const THANK_YOU = `${LAYOUT_HEAD}<main class="thank-you"><h1>Thank you!</h1><p>Your order <strong data-order-name>{{ order.name | escape }}</strong> is confirmed.</p></main>
${APP_EMBED}`;

const templates = {
  product: engine.parse(PRODUCT),
  "product.ajax": engine.parse(PRODUCT_AJAX),
  collection: engine.parse(COLLECTION),
  cart: engine.parse(CART),
  thank_you: engine.parse(THANK_YOU),
};

export type TemplateName = keyof typeof templates;

/** The product template of a `?view=` suffix: `product.<view>` when the theme has it, else `product` (as the platform falls back). */
export function productTemplate(view: unknown): TemplateName {
  const name = `product.${String(view)}`;
  return typeof view === "string" && name in templates ? (name as TemplateName) : "product";
}

export async function renderPage(name: TemplateName, scope: Record<string, unknown>): Promise<string> {
  const url = typeof scope.app_embed_url === "string" ? scope.app_embed_url : undefined;
  return (await engine.render(templates[name], { ...scope, app_assets: url ? { "preorder-widget.js": url } : {} })) as string;
}

/** The app embed block alone, with the Liquid objects of `scope` (a test reads what it renders). */
export async function renderAppEmbed(scope: Record<string, unknown>): Promise<string> {
  return (await engine.parseAndRender(APP_EMBED_BLOCK, scope)) as string;
}
