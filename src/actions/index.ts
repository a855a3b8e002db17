import type { AnyAction } from "../core/action.ts";
import { Registry } from "../core/registry.ts";
import { getLanguages, patchLanguages } from "./account/languages.ts";
import { listLocations } from "./account/locations.ts";
import { listMarkets } from "./account/markets.ts";
import { getTemplate, patchTemplate } from "./back_in_stock/templates.ts";
import { help } from "./discovery/help.ts";
import { getJob } from "./jobs/get.ts";

export const ACTIONS: readonly AnyAction[] = [
  help,
  getJob,
  getLanguages,
  patchLanguages,
  listLocations,
  listMarkets,
  getTemplate,
  patchTemplate,
];

export function createRegistry(): Registry {
  return new Registry(ACTIONS);
}
