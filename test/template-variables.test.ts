import { describe, expect, it } from "vitest";
import { LAYOUT_VARIABLES } from "../src/account/layout.ts";
import { stageVariables } from "../src/back_in_stock/templates/stages.ts";
import { unknownVariables } from "../src/messaging/render/variables-check.ts";
import { stageVariables as preorderStageVariables } from "../src/preorders/notifications/stages.ts";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";

/**
 * A template may use only the variables its stage declares: liquidjs renders an unknown one as
 * nothing, so `{{ product.titel }} is back` was saved and sent the subject " is back".
 */

const env = useTestEnv();

const errorsOf = (body: unknown): string[] => (body as { errors: string[] }).errors;

describe("the static check", () => {
  it("reports undeclared names, not what the template assigns, captures or loops over, nor built-in properties", () => {
    const known = ["shop.name", "product.title", "layout.colors.text"];
    const fine = [
      "{% assign t = product.title | upcase %}{{ t }}{{ t.size }}",
      "{% capture c %}{{ shop.name }}{% endcapture %}{{ c }}",
      "{% for w in product.title | split: ' ' %}{{ forloop.index }}{{ w }}{% endfor %}",
      "{{ product['title'] }}{{ shop.name.size }}{{ layout.colors }}{{ layout.colors.text }}{% if product.title != blank %}x{% endif %}",
    ];
    for (const source of fine) expect(unknownVariables(source, known), source).toEqual([]);
    expect(unknownVariables("{{ product.titel }} {{ produkt.title }} {{ product.titel }} {{ forloop.index }} {{ shop.name.first.x }}", known)).toEqual([
      "product.titel",
      "produkt.title",
      "forloop.index",
      "shop.name.first.x",
    ]);
    // A name read before the template assigns it was not set at that point.
    expect(unknownVariables("{{ t }}{% assign t = 1 %}{{ t }}", known)).toEqual(["t"]);
  });
});

describe("PATCH refuses a template that uses an unknown variable", () => {
  it("back in stock: names the field and the variable and lists the stage's variables; nothing is saved", async () => {
    const answer = await invoke(env.app, "PATCH", "/back_in_stock/templates/initial/en", { key: env.key, body: { email: { subject: "{{ product.titel }} is back" } } });
    expect(answer.status).toBe(422);
    expect(errorsOf(answer.body)).toEqual([`email.subject uses unknown variable product.titel; known: ${stageVariables("initial").join(", ")}`]);
    expect(stageVariables("initial")).toEqual(expect.arrayContaining(["shop.name", "shop.url", "product.title", "unsubscribe_url"]));

    const both = await invoke(env.app, "PATCH", "/back_in_stock/templates/reminder/de", {
      key: env.key,
      body: { email: { body: "<p>{{ customer.name }} {{ x }}</p>{{ unsubscribe_url }}" }, sms: { body: "{{ product.title }} {{ shop.nam }}" } },
    });
    expect(both.status).toBe(422);
    expect(errorsOf(both.body).map((e) => e.split(";")[0])).toEqual(["email.body uses unknown variables customer.name, x", "sms.body uses unknown variable shop.nam"]);
    const { rows } = await env.app.pool.query("select 1 from message_templates where shop_id = $1 and area = 'back_in_stock'", [env.shopId]);
    expect(rows).toHaveLength(0);
  });

  it("back in stock: accepts assigned names, loops and forloop, and GET lists the stage's variables", async () => {
    const body = "{% assign name = customer.first_name | default: 'there' %}Hi {{ name }}{% for w in product.title | split: ' ' %}{{ forloop.index }}{{ w }}{% endfor %} {{ unsubscribe_url }}";
    const answer = await invoke(env.app, "PATCH", "/back_in_stock/templates/signup_thank_you/en", { key: env.key, body: { email: { body } } });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ email: { body, customized: true }, variables: stageVariables("signup_thank_you") });
  });

  it("preorders: previous_delivery is known to shipping_date_change only", async () => {
    const source = "{{ offer.name }} was due {{ previous_delivery.date }}";
    const refused = await invoke(env.app, "PATCH", "/preorders/templates/confirmation/en", { key: env.key, body: { sms: { body: source } } });
    expect(refused.status).toBe(422);
    expect(errorsOf(refused.body)).toEqual([`sms.body uses unknown variable previous_delivery.date; known: ${preorderStageVariables("confirmation").join(", ")}`]);
    const typo = await invoke(env.app, "PATCH", "/preorders/templates/balance_due/fr", { key: env.key, body: { email: { subject: "Solde {{ balance.amout }}" } } });
    expect(errorsOf(typo.body)[0]).toMatch(/^email\.subject uses unknown variable balance\.amout; known: shop\.name, /);
    const accepted = await invoke(env.app, "PATCH", "/preorders/templates/shipping_date_change/en", { key: env.key, body: { sms: { body: source } } });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ sms: { body: source }, variables: preorderStageVariables("shipping_date_change") });
    expect(preorderStageVariables("shipping_date_change")).toContain("previous_delivery.date");
  });

  it("the e-mail layout, saved or previewed", async () => {
    const html = "<html><body>{% if layout.logo != blank %}<img src=\"{{ layout.logo }}\">{% endif %}{{ content }}</body></html>";
    const expected = `html uses unknown variable layout.logo; known: ${LAYOUT_VARIABLES.join(", ")}`;
    const saved = await invoke(env.app, "PATCH", "/account/templates/email_layout", { key: env.key, body: { html } });
    expect(saved.status).toBe(422);
    expect(errorsOf(saved.body)).toEqual([expected]);
    const preview = await invoke(env.app, "POST", "/account/templates/email_layout/preview", { key: env.key, body: { layout: { html } } });
    expect(preview.status).toBe(422);
    expect(errorsOf(preview.body)).toEqual([`layout.${expected}`]);
    const fine = await invoke(env.app, "PATCH", "/account/templates/email_layout", { key: env.key, body: { html: html.replaceAll("layout.logo", "layout.logo_url") } });
    expect(fine.status).toBe(202);
  });
});
