import type { Db } from "../core/db.ts";
import type { MessageArea } from "./areas.ts";

/**
 * Merchants' message templates and stage switches of every area, in one table each
 * (message_templates, message_stage_settings; migration 096): a row overrides the area's shipped
 * default for a stage, locale and channel; a missing row means the default. Each area keeps its
 * stages, defaults and variables (back_in_stock/templates/stages.ts, preorders/notifications/stages.ts).
 */

interface StoredTemplateRow {
  locale: string;
  channel: "email" | "sms";
  subject: string | null;
  body: string;
  updated_at: Date;
}

/** The shop's overrides of one stage: every locale, or one. */
export async function storedTemplateRows(db: Db, shopId: string, area: MessageArea, stage: string, locale?: string): Promise<StoredTemplateRow[]> {
  const { rows } = await db.query<StoredTemplateRow>(
    `select locale, channel, subject, body, updated_at from message_templates
     where shop_id = $1 and area = $2 and stage = $3 and ($4::text is null or locale = $4)`,
    [shopId, area, stage, locale ?? null],
  );
  return rows;
}

export async function upsertTemplate(
  db: Db,
  key: { shopId: string; area: MessageArea; stage: string; locale: string; channel: "email" | "sms" },
  text: { subject: string | null; body: string },
): Promise<void> {
  await db.query(
    `insert into message_templates (shop_id, area, stage, locale, channel, subject, body) values ($1, $2, $3, $4, $5, $6, $7)
     on conflict (shop_id, area, stage, locale, channel) do update set subject = excluded.subject, body = excluded.body, updated_at = now()`,
    [key.shopId, key.area, key.stage, key.locale, key.channel, text.subject, text.body],
  );
}

/** The switches the shop set (absent stages keep their defaults). */
export async function storedStageSwitches(db: Db, shopId: string, area: MessageArea): Promise<Map<string, boolean>> {
  const { rows } = await db.query<{ stage: string; enabled: boolean }>("select stage, enabled from message_stage_settings where shop_id = $1 and area = $2", [
    shopId,
    area,
  ]);
  return new Map(rows.map((r) => [r.stage, r.enabled]));
}

export async function setStageSwitch(db: Db, shopId: string, area: MessageArea, stage: string, enabled: boolean): Promise<void> {
  await db.query(
    `insert into message_stage_settings (shop_id, area, stage, enabled) values ($1, $2, $3, $4)
     on conflict (shop_id, area, stage) do update set enabled = excluded.enabled, updated_at = now()`,
    [shopId, area, stage, enabled],
  );
}
