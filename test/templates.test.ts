import { describe, expect, it } from "vitest";
import { createShopWithKey, invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";

interface Template {
  stage: string;
  locale: string;
  enabled: boolean;
  email: { subject: string; body: string; customized: boolean; default_locale: string | null };
  sms: { body: string; customized: boolean; default_locale: string | null };
  variables: string[];
}

const STAGES = ["initial", "reminder", "signup_thank_you"] as const;
const SHIPPED_LOCALES = ["en", "fr", "de", "es"] as const;

const env = useTestEnv();

async function getTemplate(stage: string, locale: string, apiKey = env.key): Promise<Template> {
  const answer = await invoke(env.app, "GET", `/back_in_stock/templates/${stage}/${locale}`, { key: apiKey });
  expect(answer.status).toBe(200);
  return answer.body as Template;
}

describe("shipped defaults", () => {
  it("has a default for every stage in en, fr, de and es", async () => {
    const seen = new Set<string>();
    for (const stage of STAGES) {
      for (const locale of SHIPPED_LOCALES) {
        const template = await getTemplate(stage, locale);
        expect(template).toMatchObject({ stage, locale });
        expect(template.email.subject.trim()).not.toBe("");
        expect(template.email.body.trim()).not.toBe("");
        expect(template.sms.body.trim()).not.toBe("");
        expect(template.email).toMatchObject({ customized: false, default_locale: locale });
        expect(template.sms).toMatchObject({ customized: false, default_locale: locale });
        expect(template.variables).toEqual(expect.arrayContaining(["product.title", "unsubscribe_url"]));
        seen.add(template.email.subject);
      }
    }
    // Each stage and language has its own text, not one copied everywhere.
    expect(seen.size).toBe(STAGES.length * SHIPPED_LOCALES.length);
  });

  it("falls back to en for a locale without its own text, and to the language for a regional locale", async () => {
    const en = await getTemplate("initial", "en");
    const it_ = await getTemplate("initial", "it");
    expect(it_).toMatchObject({ locale: "it", email: { customized: false, default_locale: "en" }, sms: { default_locale: "en" } });
    expect(it_.email.subject).toBe(en.email.subject);
    const fr = await getTemplate("reminder", "fr");
    const frCa = await getTemplate("reminder", "fr-CA");
    expect(frCa).toMatchObject({ locale: "fr-CA", email: { default_locale: "fr", subject: fr.email.subject } });
  });

  it("falls back to the shop's default locale before en", async () => {
    const { apiKey: otherKey, shopId: otherShop } = await createShopWithKey(env.app.pool, "German shop");
    await env.app.pool.query("update shops set default_locale = 'de' where id = $1", [otherShop]);
    const de = await getTemplate("initial", "de", otherKey);
    const it_ = await getTemplate("initial", "it", otherKey);
    expect(it_.email).toMatchObject({ default_locale: "de", subject: de.email.subject });
  });

  it("switches initial on and reminder and signup_thank_you off by default", async () => {
    expect((await getTemplate("initial", "en")).enabled).toBe(true);
    expect((await getTemplate("reminder", "en")).enabled).toBe(false);
    expect((await getTemplate("signup_thank_you", "en")).enabled).toBe(false);
  });

  it("accepts 0 and 1 as aliases of initial and reminder", async () => {
    expect(await getTemplate("0", "fr")).toEqual(await getTemplate("initial", "fr"));
    expect(await getTemplate("1", "de")).toEqual(await getTemplate("reminder", "de"));
    expect((await getTemplate("0", "en")).stage).toBe("initial");
  });
});

describe("validation of the path", () => {
  it("refuses an unknown stage", async () => {
    for (const stage of ["2", "final"]) {
      const answer = await invoke(env.app, "GET", `/back_in_stock/templates/${stage}/en`, { key: env.key });
      expect(answer.status).toBe(422);
      expect(answer.body).toEqual({ errors: ["stage must be one of: initial, reminder, signup_thank_you, 0, 1"] });
    }
    const patch = await invoke(env.app, "PATCH", "/back_in_stock/templates/2/en", { key: env.key, body: { enabled: true } });
    expect(patch.status).toBe(422);
    expect(patch.body).toEqual({ errors: ["stage must be one of: initial, reminder, signup_thank_you, 0, 1"] });
  });

  it("refuses a malformed locale", async () => {
    const answer = await invoke(env.app, "GET", "/back_in_stock/templates/initial/EN_us", { key: env.key });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ errors: ["locale must be a locale"] });
  });
});

describe("PATCH", () => {
  it("flips a stage's switch for every locale, and only that stage", async () => {
    const answer = await invoke(env.app, "PATCH", "/back_in_stock/templates/1/en", { key: env.key, body: { enabled: true } });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ stage: "reminder", locale: "en", enabled: true });
    for (const locale of ["en", "fr", "it"]) expect((await getTemplate("reminder", locale)).enabled).toBe(true);
    expect((await getTemplate("signup_thank_you", "en")).enabled).toBe(false);
    expect((await getTemplate("initial", "en")).enabled).toBe(true);

    const off = await invoke(env.app, "PATCH", "/back_in_stock/templates/initial/de", { key: env.key, body: { enabled: false } });
    expect(off.body).toMatchObject({ stage: "initial", enabled: false });
    for (const locale of ["en", "de", "es"]) expect((await getTemplate("0", locale)).enabled).toBe(false);
    // A switch change alone creates no text override.
    expect((await getTemplate("initial", "de")).email.customized).toBe(false);
    const { rows } = await env.app.pool.query("select 1 from message_templates where shop_id = $1 and area = 'back_in_stock'", [env.shopId]);
    expect(rows).toHaveLength(0);
  });

  it("overrides the e-mail subject of one locale, keeping its body and leaving other locales alone", async () => {
    const before = await getTemplate("signup_thank_you", "fr");
    const enBefore = await getTemplate("signup_thank_you", "en");
    const answer = await invoke(env.app, "PATCH", "/back_in_stock/templates/signup_thank_you/fr", {
      key: env.key,
      body: { email: { subject: "Merci, {{ customer.first_name }} !" } },
    });
    expect(answer.status).toBe(202);
    const after = answer.body as Template;
    expect(after.email).toEqual({ subject: "Merci, {{ customer.first_name }} !", body: before.email.body, customized: true, default_locale: null });
    expect(after.sms).toEqual(before.sms);
    expect(await getTemplate("signup_thank_you", "fr")).toEqual(after);
    expect(await getTemplate("signup_thank_you", "en")).toEqual(enBefore);
    expect((await getTemplate("initial", "fr")).email.customized).toBe(false);
  });

  it("overrides a fallback locale with its own text", async () => {
    const answer = await invoke(env.app, "PATCH", "/back_in_stock/templates/initial/it", {
      key: env.key,
      body: { sms: { body: "{{ product.title }} è tornato!" } },
    });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({
      locale: "it",
      sms: { body: "{{ product.title }} è tornato!", customized: true, default_locale: null },
      email: { customized: false, default_locale: "en" },
    });
    expect((await getTemplate("initial", "en")).sms.customized).toBe(false);
  });

  it("refuses a Liquid syntax error or an unknown filter, and saves nothing", async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ email: { body: "Hello {{ product.title" } }, /^email\.body is not a valid template: .+/],
      [{ email: { body: "{% if %}yes{% endif %}" } }, /^email\.body is not a valid template: .+/],
      [{ email: { body: "{{ product.title | nofilter }}" } }, /^email\.body is not a valid template: .*nofilter/],
      [{ email: { subject: "{% if product.title %}open" } }, /^email\.subject is not a valid template: .+/],
      [{ sms: { body: "{{ x | nofilter }}" } }, /^sms\.body is not a valid template: .*nofilter/],
    ];
    for (const [body, message] of cases) {
      const answer = await invoke(env.app, "PATCH", "/back_in_stock/templates/initial/es", { key: env.key, body });
      expect(answer.status).toBe(422);
      const { errors } = answer.body as { errors: string[] };
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(message);
      expect(errors[0]).not.toContain("\n");
    }
    const both = await invoke(env.app, "PATCH", "/back_in_stock/templates/initial/es", {
      key: env.key,
      body: { enabled: true, email: { subject: "{{ a", body: "ok" }, sms: { body: "{{ b | nofilter }}" } },
    });
    expect(both.status).toBe(422);
    expect((both.body as { errors: string[] }).errors.map((e) => e.split(":")[0])).toEqual([
      "email.subject is not a valid template",
      "sms.body is not a valid template",
    ]);
    const es = await getTemplate("initial", "es");
    expect(es.email.customized).toBe(false);
    expect(es.sms.customized).toBe(false);
    // The refused PATCH carried enabled: true; the initial stage stays off from the earlier test.
    expect(es.enabled).toBe(false);
  });

  it("refuses an empty text and unknown fields", async () => {
    const empty = await invoke(env.app, "PATCH", "/back_in_stock/templates/initial/es", { key: env.key, body: { email: { subject: "" } } });
    expect(empty.status).toBe(422);
    expect(empty.body).toEqual({ errors: ["email.subject must not be empty"] });
    const typo = await invoke(env.app, "PATCH", "/back_in_stock/templates/initial/es", { key: env.key, body: { email: { subjekt: "x" }, sms: "x" } });
    expect(typo.body).toEqual({ errors: ["email.subjekt is not allowed", "sms must be an object"] });
  });

  it("accepts a valid template that uses known filters and tags", async () => {
    const answer = await invoke(env.app, "PATCH", "/back_in_stock/templates/0/es", {
      key: env.key,
      body: { email: { body: "{% if customer.first_name %}Hola {{ customer.first_name | upcase }}{% endif %} {{ product.url }}" } },
    });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ email: { customized: true, body: expect.stringContaining("upcase") as unknown } });
  });
});
