import type { Db } from "../../core/db.ts";
import { type ShopInfo, messageLocale } from "../../account/shop-info.ts";
import { storedStageSwitches, storedTemplateRows } from "../../messaging/templates.ts";
import { type Channel, DEFAULT_STAGE_ENABLED, DEFAULT_TEMPLATES, type Stage } from "./default-templates.ts";
import { unsubscribeUrl } from "../signups/unsubscribe-link.ts";
import { exceededLimit, templateFailure } from "../../messaging/render/limits.ts";
import { RENDER_JOB_SIZE, type RenderField, finishMessages, renderFields } from "../../messaging/render/render.ts";
import { fallbackLocales } from "../../core/locales.ts";
import type { OutboundMessage, RenderedMessage } from "../../channels/types.ts";
import { type TitleRequest, type TitleTranslator, type TranslatedTitles, needsTranslation, titleKey } from "../../messaging/product-titles.ts";

/**
 * Messages render on the render pool the PATCH check uses (src/messaging/render: same engine,
 * same limits), so what passed it renders. `prepare` sends a batch's renders to the pool in a few
 * jobs per template, not one per message: a batch renders thousands.
 */

interface VariantInfo {
  id: string;
  productId: string | null;
  title: string;
  sku: string | null;
  price: string;
  productTitle: string;
  productUrl: string;
}

/** What a message is rendered for: the signup's fields the variables use. */
export interface Recipient {
  ledgerId: string;
  signupId: string;
  stage: Stage;
  channel: Channel;
  contact: string;
  locale: string;
  firstName: string | null;
  variantId: string;
}

interface TemplateText {
  subject?: string;
  body: string;
}

/** The template a message uses, and where it comes from (for the reason when it fails). */
interface ChosenTemplate extends Required<TemplateText> {
  locale: string;
}

/** Whether each stage is on for the shop (its switches over the shipped defaults). */
export async function stageSwitches(db: Db, shopId: string): Promise<Record<Stage, boolean>> {
  return stageSwitchesOver(await storedStageSwitches(db, shopId, "back_in_stock"));
}

/** The switches a shop stored (stage to enabled, as message_stage_settings holds them) over the shipped defaults. */
export function stageSwitchesOver(stored: Iterable<[string, boolean]>): Record<Stage, boolean> {
  const switches = { ...DEFAULT_STAGE_ENABLED };
  for (const [stage, enabled] of stored) if (stage in switches) switches[stage as Stage] = enabled;
  return switches;
}

/** The address part of `Name <address>` (or the whole text when it is a bare address). */
function addressOf(from: string): string {
  return /<([^<>]+)>\s*$/.exec(from)?.[1] ?? from.trim();
}

interface PrepareOptions {
  /** The render pool's priority for these messages: higher first (default 0; see RenderLane). */
  priority?: number;
}

interface RendererOptions {
  /** The service's public origin, where unsubscribe links point. */
  publicBaseUrl: string;
  /** The secret the unsubscribe links are signed with. */
  unsubscribeSecret: string;
  /** The configured sender (EMAIL_FROM); its address is used with the shop's name. */
  emailFrom: string;
  /** Translated product titles, used while the shop has product_translations_enabled (else the catalog's title). */
  titles?: TitleTranslator;
  /** What the shop adds to each rendered message before it is finished (its layout and sender: dressRendered); may throw. */
  dress?: (message: RenderedMessage) => RenderedMessage;
}

/**
 * Renders messages of one shop. Templates are loaded once per stage, variants once each: a batch
 * of thousands of messages costs a few queries. The template for a stage, channel and locale is
 * the first of the locale, its language, the shop's default locale and en that has a merchant's
 * text or a shipped default.
 */
export class Renderer {
  readonly shop: ShopInfo;
  private readonly options: RendererOptions;
  private readonly overrides = new Map<Stage, Map<string, TemplateText>>();
  private readonly variants = new Map<string, VariantInfo>();
  /** Translated product titles by titleKey, as the translator answered them (absent: the catalog's title). */
  private readonly translated: TranslatedTitles = new Map();
  /** titleKeys already asked for: a product without a translation is not asked again by this renderer. */
  private readonly asked = new Set<string>();
  private readonly from: string;
  /**
   * Templates (by kind and source) that went beyond a limit keep their error, so later batches
   * fail at once instead of each message spending the limit again.
   */
  private readonly failed = new Map<string, Error>();
  /** Messages `prepare` started rendering, by ledger id, until `render` takes them. */
  private readonly rendered = new Map<string, Promise<OutboundMessage>>();

  constructor(shop: ShopInfo, options: RendererOptions) {
    this.shop = shop;
    this.options = options;
    const name = shop.name.replace(/["\\\r\n]/g, "");
    this.from = `"${name}" <${addressOf(options.emailFrom)}>`;
  }

  /**
   * Loads what the recipients need that is not cached yet, through `db`, and starts their renders.
   * `priority` is the send's (SendOptions.priority: a restock burst's first messages 1, default
   * 0): the render pool renders a higher one first, so a burst's messages do not wait behind the
   * follow-ups of batches queued before it.
   */
  async prepare(db: Db, recipients: readonly Recipient[], options: PrepareOptions = {}): Promise<void> {
    for (const stage of new Set(recipients.map((r) => r.stage))) {
      if (this.overrides.has(stage)) continue;
      const rows = await storedTemplateRows(db, this.shop.id, "back_in_stock", stage);
      this.overrides.set(stage, new Map(rows.map((r) => [`${r.channel}:${r.locale}`, { subject: r.subject ?? undefined, body: r.body }])));
    }
    const missing = [...new Set(recipients.map((r) => r.variantId))].filter((id) => !this.variants.has(id));
    if (missing.length > 0) await this.loadVariants(db, missing);
    await this.loadTitles(db, recipients);
    this.renderAll(recipients, options.priority ?? 0);
  }

  /** The platform's titles of the recipients' products in their message locales (product_translations_enabled). */
  private async loadTitles(db: Db, recipients: readonly Recipient[]): Promise<void> {
    const { titles } = this.options;
    if (!titles || !this.shop.productTranslations) return;
    const requests: TitleRequest[] = [];
    for (const recipient of recipients) {
      const productId = this.variants.get(recipient.variantId)?.productId;
      const locale = messageLocale(this.shop, recipient.locale);
      if (!productId || !needsTranslation(locale, this.shop.defaultLocale) || this.asked.has(titleKey(productId, locale))) continue;
      this.asked.add(titleKey(productId, locale));
      requests.push({ productId, locale });
    }
    if (requests.length === 0) return;
    for (const [key, title] of await titles.titles(db, this.shop.id, requests)) this.translated.set(key, title);
  }

  private productTitle(variant: VariantInfo | undefined, recipientLocale: string): string {
    if (!variant) return "";
    const translated = variant.productId ? this.translated.get(titleKey(variant.productId, messageLocale(this.shop, recipientLocale))) : undefined;
    return translated ?? variant.productTitle;
  }

  private async loadVariants(db: Db, missing: string[]): Promise<void> {
    const { rows } = await db.query<{
      id: string;
      product_id: string | null;
      title: string;
      sku: string | null;
      price: string;
      legacy_id: string;
      product_title: string | null;
      handle: string | null;
    }>(
      `select v.id, v.product_id, v.title, v.sku, v.price::text as price, v.legacy_id::text as legacy_id, p.title as product_title, p.handle
       from variants v left join products p on p.shop_id = v.shop_id and p.id = v.product_id
       where v.shop_id = $1 and v.id = any($2::text[])`,
      [this.shop.id, missing],
    );
    for (const id of missing) {
      const row = rows.find((r) => r.id === id);
      const handle = row?.handle;
      this.variants.set(id, {
        id,
        productId: row?.product_id ?? null,
        title: row?.title === "Default Title" ? "" : (row?.title ?? ""),
        sku: row?.sku ?? null,
        price: row?.price ?? "",
        productTitle: row?.product_title ?? row?.title ?? "",
        productUrl: handle && this.shop.url ? `${this.shop.url}/products/${handle}${row.legacy_id ? `?variant=${row.legacy_id}` : ""}` : this.shop.url,
      });
    }
  }

  private template(stage: Stage, channel: Channel, locale: string): ChosenTemplate {
    const overrides = this.overrides.get(stage);
    const candidates = fallbackLocales(messageLocale(this.shop, locale), this.shop.defaultLocale);
    const shippedSubject = candidates.map((c) => DEFAULT_TEMPLATES[stage][c]?.email.subject).find((s) => s !== undefined) ?? "";
    for (const candidate of candidates) {
      const override = overrides?.get(`${channel}:${candidate}`);
      if (override) return { subject: override.subject ?? shippedSubject, body: override.body, locale: candidate };
      const shipped = DEFAULT_TEMPLATES[stage][candidate];
      if (shipped) {
        return channel === "email"
          ? { subject: shipped.email.subject, body: shipped.email.body, locale: candidate }
          : { subject: "", body: shipped.sms.body, locale: candidate };
      }
    }
    throw new Error(`no ${stage} template for ${channel}`);
  }

  unsubscribeUrl(signupId: string): string {
    return unsubscribeUrl(this.options.publicBaseUrl, this.options.unsubscribeSecret, signupId);
  }

  /** The variables of TEMPLATE_VARIABLES for one recipient. */
  variables(recipient: Recipient): Record<string, unknown> {
    const variant = this.variants.get(recipient.variantId);
    return {
      shop: { name: this.shop.name, url: this.shop.url },
      customer: {
        first_name: recipient.firstName ?? "",
        email: recipient.channel === "email" ? recipient.contact : "",
        phone: recipient.channel === "sms" ? recipient.contact : "",
      },
      product: { title: this.productTitle(variant, recipient.locale), url: variant?.productUrl ?? this.shop.url, image_url: "" },
      variant: { title: variant?.title ?? "", sku: variant?.sku ?? "", price: variant?.price ?? "" },
      unsubscribe_url: this.unsubscribeUrl(recipient.signupId),
    };
  }

  /**
   * Renders the recipients' messages on the render pool, a few jobs per template (grouped by the
   * template each message uses); `render` then answers them. A field beyond a limit keeps its
   * error for the renderer's later batches.
   */
  private renderAll(recipients: readonly Recipient[], priority: number): void {
    const groups = new Map<string, { template: ChosenTemplate; recipients: Recipient[] }>();
    for (const recipient of recipients) {
      if (this.rendered.has(recipient.ledgerId)) continue;
      let template: ChosenTemplate;
      try {
        template = this.template(recipient.stage, recipient.channel, recipient.locale);
      } catch (error) {
        this.keep(recipient, Promise.reject(error instanceof Error ? error : new Error(String(error))));
        continue;
      }
      const key = `${recipient.stage}\0${recipient.channel}\0${template.locale}\0${template.subject}\0${template.body}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { template, recipients: [] }));
      group.recipients.push(recipient);
    }
    for (const { template, recipients: group } of groups.values()) {
      // A job's worth at a time, each finished as soon as it rendered: a chunk's first sends do not wait for its last renders.
      for (let i = 0; i < group.length; i += RENDER_JOB_SIZE) this.renderPart(template, group.slice(i, i + RENDER_JOB_SIZE), priority);
    }
  }

  /** Renders recipients of one template, dresses their messages (the shop's layout and sender) and finishes them on the pool. */
  private renderPart(template: ChosenTemplate, part: Recipient[], priority: number): void {
    const channel = part[0]?.channel ?? "email";
    const fields: RenderField[] = channel === "sms" ? [{ kind: "text", source: template.body }] : [{ kind: "text", source: template.subject }, { kind: "html", source: template.body }];
    const names = channel === "sms" ? ["body"] : ["subject", "body"];
    const variables = part.map((r) => this.variables(r));
    const lane = { owner: this.shop.id, priority };
    const known = fields.map((f) => this.failed.get(`${f.kind}:${f.source}`));
    const outcomes = known.some((e) => e !== undefined)
      ? Promise.resolve(part.map(() => known.map((e) => e ?? "")))
      : renderFields(fields, variables, lane).then((rows) => {
          for (const row of rows) {
            row.forEach((outcome, i) => {
              const field = fields[i];
              if (field && outcome instanceof Error && exceededLimit(outcome)) this.failed.set(`${field.kind}:${field.source}`, outcome);
            });
          }
          return rows;
        });
    const messages = outcomes.then(async (rows) => {
      const dressed = part.map((recipient, index): RenderedMessage | Error => {
        const row = rows[index] ?? [];
        const failure = row.findIndex((o) => o instanceof Error);
        if (failure >= 0) {
          const field = `the ${recipient.stage} ${recipient.channel}.${names[failure] ?? "body"} (${template.locale})`;
          return new Error(templateFailure(field, row[failure]), { cause: row[failure] });
        }
        try {
          const message = this.message(recipient, variables[index] ?? {}, row as string[]);
          return this.options.dress ? this.options.dress(message) : message;
        } catch (error) {
          return error instanceof Error ? error : new Error(String(error));
        }
      });
      const ready = dressed.filter((m): m is RenderedMessage => !(m instanceof Error));
      const finished = await finishMessages(ready, lane);
      let next = 0;
      return dressed.map((m) => (m instanceof Error ? m : (finished[next++] ?? new Error("the message was not finished"))));
    });
    part.forEach((recipient, index) => {
      this.keep(
        recipient,
        messages.then((list) => {
          const message = list[index] ?? new Error(`nothing rendered for ${recipient.ledgerId}`);
          if (message instanceof Error) throw message;
          return message;
        }),
      );
    });
  }

  private keep(recipient: Recipient, message: Promise<OutboundMessage>): void {
    // Answered by `render`; a message nobody asks for must not be an unhandled rejection.
    message.catch(() => undefined);
    this.rendered.set(recipient.ledgerId, message);
  }

  /** The message without an e-mail's text part: finishing derives it once, from the html the layout wraps. */
  private message(recipient: Recipient, variables: Record<string, unknown>, texts: string[]): RenderedMessage {
    if (recipient.channel === "sms") return { id: recipient.ledgerId, channel: "sms", to: recipient.contact, text: (texts[0] ?? "").trim() };
    const subject = texts[0] ?? "";
    const html = texts[1] ?? "";
    const link = variables.unsubscribe_url as string;
    return {
      id: recipient.ledgerId,
      channel: "email",
      to: recipient.contact,
      from: this.from,
      subject: subject.replace(/\s+/g, " ").trim(),
      html,
      headers: { "List-Unsubscribe": `<${link}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
    };
  }

  /**
   * The message for one recipient; call `prepare` with it first. Rejects with an Error whose
   * message names the field and the rule it broke (`the initial sms.body (de) must render within 100 ms`).
   */
  render(recipient: Recipient): Promise<OutboundMessage> {
    if (!this.rendered.has(recipient.ledgerId)) this.renderAll([recipient], 0);
    const message = this.rendered.get(recipient.ledgerId) ?? Promise.reject(new Error(`nothing rendered for ${recipient.ledgerId}`));
    this.rendered.delete(recipient.ledgerId);
    return message;
  }
}
