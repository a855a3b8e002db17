import { describe, expect, it } from "vitest";
import { stageVariables } from "../src/back_in_stock/templates/stages.ts";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";

/** POST /back_in_stock/templates/{stage}/{locale}/preview: a stage's messages as a send makes them, nothing saved. */

const env = useTestEnv({ shop: "Preview Shop" });

interface Preview {
  stage: string;
  locale: string;
  email: { from: string; subject: string; html: string; text: string };
  sms: { text: string };
  layout: boolean;
}

async function preview(path: string, body: Record<string, unknown> = {}): Promise<{ status: number; body: unknown }> {
  return invoke(env.app, "POST", `/back_in_stock/templates/${path}/preview`, { key: env.key, body });
}

const SAMPLE_LINK = "https://sample-store.example/unsubscribe/sample";
const count = (text: string, part: string): number => text.split(part).length - 1;

describe("template preview", () => {
  it("renders the shipped texts with sample values in the shop's layout and from its sender", async () => {
    const answer = await preview("initial/en");
    expect(answer.status).toBe(200);
    const p = answer.body as Preview;
    expect(p).toMatchObject({ stage: "initial", locale: "en", layout: true, email: { subject: "Sample Tee is back in stock" } });
    expect(p.email.from).toContain("Preview Shop");
    expect(p.email.html).toContain("<!DOCTYPE html>");
    expect(p.email.html).toContain("<p>Hi Alex,</p>");
    expect(p.email.html).toContain("<strong>Preview Shop</strong>");
    // The shipped body links the unsubscribe page itself: no second link.
    expect(count(p.email.html, SAMPLE_LINK)).toBe(1);
    expect(p.email.text).toContain(`Unsubscribe (${SAMPLE_LINK})`);
    expect(p.sms.text).toMatch(/^Preview Shop: Sample Tee is back in stock\. /);
    const fr = (await preview("0/fr")).body as Preview;
    expect(fr).toMatchObject({ stage: "initial", locale: "fr", email: { subject: "Sample Tee est de nouveau en stock" } });
  });

  it("tries unsaved texts over the saved ones, adds the unsubscribe link a body lacks, and saves nothing", async () => {
    const saved = await invoke(env.app, "PATCH", "/back_in_stock/templates/reminder/en", { key: env.key, body: { email: { subject: "Saved: {{ product.title }}" } } });
    expect(saved.status).toBe(202);
    const answer = await preview("reminder/en", { email: { body: "<p>{{ product.title }} ({{ variant.title }}) now</p>" }, sms: { body: "{{ shop.name }} {{ variant.sku }}" } });
    expect(answer.status).toBe(200);
    const p = answer.body as Preview;
    expect(p.email.subject).toBe("Saved: Sample Tee");
    expect(p.email.html).toContain("<p>Sample Tee (Blue / M) now</p>");
    expect(p.email.html).toContain(`<a href="${SAMPLE_LINK}">Unsubscribe</a>`);
    expect(p.sms.text).toBe("Preview Shop TEE-BLU-M");
    const get = await invoke(env.app, "GET", "/back_in_stock/templates/reminder/en", { key: env.key });
    expect(get.body).toMatchObject({ email: { subject: "Saved: {{ product.title }}", customized: true }, sms: { customized: false } });
    expect((get.body as { email: { body: string } }).email.body).not.toContain("now</p>");
  });

  it("refuses what the PATCH refuses, with the same messages", async () => {
    const unknown = await preview("signup_thank_you/de", { email: { subject: "{{ product.titel }}" } });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toEqual({ errors: [`email.subject uses unknown variable product.titel; known: ${stageVariables("signup_thank_you").join(", ")}`] });
    const broken = await preview("initial/en", { sms: { body: "{{ product.title" } });
    expect(broken.status).toBe(422);
    expect((broken.body as { errors: string[] }).errors[0]).toMatch(/^sms\.body is not a valid template: /);
    const empty = await preview("initial/en", { email: { body: "" } });
    expect(empty.body).toEqual({ errors: ["email.body must not be empty"] });
    const stage = await preview("final/en");
    expect(stage.body).toEqual({ errors: ["stage must be one of: initial, reminder, signup_thank_you, 0, 1"] });
  });

  it("without the layout, answers the body alone", async () => {
    const off = await invoke(env.app, "PATCH", "/account/templates/email_layout", { key: env.key, body: { enabled: false } });
    expect(off.status).toBe(202);
    const p = (await preview("initial/es")).body as Preview;
    expect(p.layout).toBe(false);
    expect(p.email.html).not.toContain("<!DOCTYPE html>");
    expect(p.email.html).toMatch(/^<p>Hola Alex,<\/p>/);
  });
});
