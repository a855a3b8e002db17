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
      from: { path: "^src/actions/" },
      to: { path: "^src/runtime/" },
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
