// `npm run check` runs this after eslint: the module graph of src/, tasks/ and bench/ must have no
// cycle, and the layers point one way (DESIGN.md: the core knows no transport; actions get their
// services through ActionContext, never from the runtime). Type-only imports count too: a cycle
// through types still couples the modules.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "A cycle couples every module on it: break it by moving the shared part into its own module.",
      from: {},
      to: { circular: true },
    },
    {
      name: "core-knows-no-transport",
      severity: "error",
      from: { path: "^src/core/" },
      to: { path: "^src/(http|mcp)/" },
    },
    {
      name: "actions-not-from-runtime",
      severity: "error",
      comment: "Actions get their services through ActionContext.",
      from: { path: "^src/.+/actions/" },
      to: { path: "^src/runtime/" },
    },
    {
      name: "domain-not-from-actions",
      severity: "error",
      comment:
        "An area's domain sits below its actions: it never imports an action module. Only the registry (src/action-registry.ts), another action and the transports may.",
      from: { path: "^src/", pathNot: ["/actions/", "^src/action-registry[.]ts$", "^src/(http|mcp)/"] },
      to: { path: "^src/.+/actions/" },
    },
    {
      name: "no-mutual-areas",
      severity: "error",
      comment: "account is below back_in_stock and preorders: an area may use account, account uses neither.",
      from: { path: "^src/account/" },
      to: { path: "^src/(back_in_stock|preorders)/" },
    },
    {
      name: "no-mutual-areas-bis-preorders",
      severity: "error",
      comment: "back_in_stock and preorders are separate areas; what both need lives in account, messaging or core.",
      from: { path: "^src/(back_in_stock)/" },
      to: { path: "^src/preorders/" },
    },
    {
      name: "no-mutual-areas-preorders-bis",
      severity: "error",
      comment: "back_in_stock and preorders are separate areas; what both need lives in account, messaging or core.",
      from: { path: "^src/(preorders)/" },
      to: { path: "^src/back_in_stock/" },
    },
    {
      name: "tasks-only-jobs",
      severity: "error",
      comment: "tasks/ lists the worker's tasks: each is defined beside its run in an area's jobs/ folder (src/<area>/.../jobs/).",
      from: { path: "^tasks/" },
      to: { path: "^src/", pathNot: ["/jobs/", "^src/core/tasks[.]ts$"] },
    },
    {
      name: "no-unresolvable",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js", ".json"], exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
