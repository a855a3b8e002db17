import { existsSync, globSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { AnyAction } from "../src/core/action.ts";
import { ACTIONS } from "../src/action-registry.ts";

/**
 * The code as a map: an action named `<area>.<part>.<verb>` is defined in `src/<area>/<part>/actions/`
 * (or `src/<area>/actions/` when the area has no such part), and answers at `/<area>/<part>...`.
 * A few parts are named for what the API shows and live beside the domain they act on; they are
 * listed here, so that the exceptions are the map's legend and not a surprise.
 */
const PART_FOLDERS: Record<string, string> = {
  "preorders.product_variants": "src/preorders/variants",
  "preorders.products": "src/preorders/variants",
  "preorders.developer_settings": "src/preorders/settings",
  "preorders.offer_lookup": "src/preorders/offers",
  "preorders.templates": "src/preorders/notifications",
  "back_in_stock.orders": "src/back_in_stock/reports",
  "back_in_stock.products": "src/back_in_stock/reports",
  "back_in_stock.notifications": "src/back_in_stock/alerts",
  "v1.preorders": "src/preorders/offers",
  help: "src/docs",
};

/** Paths that do not start with the action's area and part: the v1 compatibility route. */
const PATH_EXCEPTIONS: Record<string, string> = { "v1.preorders.create": "/preorders" };

/**
 * Actions the registry builds from a factory of their folder, because what they combine comes from
 * two areas that must not import each other (account's setup checklist and back-in-stock's facts).
 */
const BUILT_BY_REGISTRY: Record<string, string> = { "account.setup.get": "src/account/actions/setup.ts" };

const root = path.resolve(import.meta.dirname, "..");

function folderOf(name: string): string {
  const [area = "", part = ""] = name.split(".");
  const mapped = PART_FOLDERS[`${area}.${part}`] ?? PART_FOLDERS[area];
  if (mapped) return mapped;
  const partFolder = `src/${area}/${part.replaceAll("_", "-")}`;
  if (existsSync(path.join(root, partFolder, "actions"))) return partFolder;
  const partFolderUnderscored = `src/${area}/${part}`;
  if (existsSync(path.join(root, partFolderUnderscored, "actions"))) return partFolderUnderscored;
  return `src/${area}`;
}

/** Each action object and the modules (not index files, which only gather) that export it, alone or in an exported list. */
async function definingModules(): Promise<Map<AnyAction, string[]>> {
  const byAction = new Map<AnyAction, string[]>();
  const files = globSync("src/**/actions/**/*.ts", { cwd: root }).filter((file) => path.basename(file) !== "index.ts");
  for (const file of files.sort()) {
    const exported = Object.values((await import(path.join(root, file))) as Record<string, unknown>);
    for (const value of exported.flatMap((v) => (Array.isArray(v) ? (v as unknown[]) : [v]))) {
      if (!ACTIONS.includes(value as AnyAction)) continue;
      const modules = byAction.get(value as AnyAction) ?? [];
      if (!modules.includes(file)) modules.push(file);
      byAction.set(value as AnyAction, modules);
    }
  }
  return byAction;
}

describe("where an action lives", () => {
  it("each registered action is defined in one actions module, in the folder its name says, and its path starts with its name", async () => {
    const byAction = await definingModules();
    const misplaced: string[] = [];
    for (const action of ACTIONS) {
      const modules = byAction.get(action) ?? (BUILT_BY_REGISTRY[action.name] ? [BUILT_BY_REGISTRY[action.name] ?? ""] : []);
      const folder = folderOf(action.name);
      if (modules.length !== 1) {
        misplaced.push(`${action.name}: exported by ${modules.length === 0 ? "no actions module" : modules.join(", ")}`);
        continue;
      }
      const file = modules[0] ?? "";
      if (!file.startsWith(`${folder}/actions/`)) misplaced.push(`${action.name}: in ${file}, not under ${folder}/actions/`);
      const [area = "", part = ""] = action.name.split(".");
      const prefix = PATH_EXCEPTIONS[action.name] ?? (part && action.name.split(".").length > 2 ? `/${area}/${part}` : `/${area}`);
      const stem = action.path.split("/").slice(0, prefix.split("/").length).join("/");
      if (stem !== prefix) misplaced.push(`${action.name}: path ${action.path} does not start with ${prefix}`);
    }
    expect(misplaced).toEqual([]);
  });

  it("every folder of the legend holds actions", () => {
    for (const folder of new Set(Object.values(PART_FOLDERS))) expect(existsSync(path.join(root, folder, "actions")), folder).toBe(true);
  });
});
