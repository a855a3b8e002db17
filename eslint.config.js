import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", ".data/", "coverage/", "eslint.config.js", ".dependency-cruiser.cjs"] },
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
  // Import cycles and layer rules: dependency-cruiser (.dependency-cruiser.cjs), run by npm run check.
);
