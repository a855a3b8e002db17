import js from "@eslint/js";
import { createNodeResolver, importX } from "eslint-plugin-import-x";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", ".data/", "coverage/", "eslint.config.js"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      // Action handlers and tasks are async by contract, whether or not a given one awaits.
      "@typescript-eslint/require-await": "off",
    },
  },
  {
    plugins: { "import-x": importX },
    settings: {
      // Every relative import names its .ts file, so the plugin's own node resolver finds it.
      "import-x/resolver-next": [createNodeResolver()],
      "import-x/extensions": [".ts", ".js"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts"] },
    },
    rules: {
      // Type-only imports count too: a cycle through types still couples the modules.
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
      "import-x/no-restricted-paths": [
        "error",
        {
          zones: [
            { target: "./src/core", from: ["./src/http", "./src/mcp"], message: "core knows no transport" },
            { target: "./src/actions", from: "./src/runtime", message: "actions get their services through ActionContext" },
          ],
        },
      ],
    },
  },
);
