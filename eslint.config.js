import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", ".data/", "extensions/", "coverage/", "eslint.config.js", ".dependency-cruiser.cjs"] },
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
    // src/queue/ is the only code that names graphile-worker's schema (docs/decisions/0188).
    files: ["src/**/*.ts", "tasks/**/*.ts"],
    ignores: ["src/queue/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "Literal[value=/graphile_worker\\./], TemplateElement[value.raw=/graphile_worker\\./]",
          message: "Only src/queue/ names graphile_worker.*: use its functions, or QUEUE_RELATIONS for a joined statement.",
        },
      ],
    },
  },
  // Import cycles and layer rules: dependency-cruiser (.dependency-cruiser.cjs), run by npm run check.
);
