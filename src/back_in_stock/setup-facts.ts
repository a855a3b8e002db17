import type { BackInStockSetupFacts } from "../account/setup.ts";
import type { Db } from "../core/db.ts";
import { loadBackInStockSettings } from "./settings/settings.ts";
import { stageSwitches } from "./templates/render.ts";

/** This area's part of the account's setup checklist (GET /account/setup). */
export async function backInStockSetupFacts(db: Db, shopId: string): Promise<BackInStockSetupFacts> {
  const settings = await loadBackInStockSettings(db, shopId);
  const switches = await stageSwitches(db, shopId);
  return { channels: (["email", "sms"] as const).filter((c) => settings.channels[c].enabled), initialStageOn: switches.initial };
}
