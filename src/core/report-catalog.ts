import { z } from "zod";
import { type AnyAction, defineAction } from "./action.ts";

/**
 * A report catalog (`GET /preorders/reports`, `GET /back_in_stock/reports`, as STOQ has them): the
 * area's reports, each with its action's name, method, path, description, what it answers (json,
 * or csv through an export job) and whether it runs as a job. Built from the report actions
 * themselves, so a report added to the area's list is in its catalog.
 */

const reportEntry = z.strictObject({
  name: z.string().describe("the report's action name"),
  report: z.string().describe("the report's key: the last segment of its path (before /export for an export)"),
  method: z.enum(["GET", "POST"]),
  path: z.string().describe("under the v2 base path"),
  description: z.string(),
  format: z.enum(["json", "csv"]).describe("json: read at once; csv: an export, its file named by the finished job"),
  async: z.boolean().describe("true: answers a job handle"),
});

export function reportCatalogAction(def: { name: string; path: string; area: string; aliases: string[]; reports: readonly AnyAction[] }): AnyAction {
  // The same for every request: the registry does not change while the process runs.
  const reports = def.reports.map((action) => {
    const segments = action.path.split("/");
    const exported = segments.at(-1) === "export";
    const key = (exported ? segments.at(-2) : segments.at(-1)) ?? action.path;
    return {
      name: action.name,
      report: key === "reports" ? "all" : key,
      method: action.method === "POST" ? ("POST" as const) : ("GET" as const),
      path: action.path,
      description: action.description,
      format: exported ? ("csv" as const) : ("json" as const),
      async: action.async ?? false,
    };
  });
  return defineAction({
    name: def.name,
    method: "GET",
    path: def.path,
    description: `The ${def.area} reports: for each, its action's name, its report key, method and path, description, format (json, or csv through an asynchronous export) and whether it answers a job handle. Answers { reports }.`,
    aliases: def.aliases,
    kind: "read",
    input: z.strictObject({}),
    output: z.strictObject({ reports: z.array(reportEntry) }),
    handler: () => Promise.resolve({ reports }),
  });
}
