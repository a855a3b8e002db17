import { z } from "zod";
import { defineAction } from "../../core/action.ts";
import { HELP_ACTION } from "../../core/dispatcher.ts";
import { Manifest } from "../../core/manifest.ts";

const manifests = new WeakMap<object, Manifest>();

export const help = defineAction({
  name: HELP_ACTION,
  method: "GET",
  path: "/help",
  description:
    "Manifest of every registered action: method, path, aliases, path parameters, JSON Schema of the request, cost in rate-limit points and whether it answers a job handle. Narrow it with ?prefix=/preorders/offers or GET <scope>/help.",
  kind: "read",
  input: z.strictObject({
    prefix: z.string().regex(/^(\/[A-Za-z0-9_{}.-]+)*\/?$/, "must be a path prefix such as /preorders/offers").optional(),
  }),
  async handler(ctx, { input }) {
    let manifest = manifests.get(ctx.registry);
    if (!manifest) {
      manifest = new Manifest(ctx.registry.actions);
      manifests.set(ctx.registry, manifest);
    }
    return manifest.document(input.prefix ?? "");
  },
});
