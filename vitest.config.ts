import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: files run in parallel processes, each on its own cloned database.
    pool: "forks",
    reporters: ["default", "./test/summary-reporter.ts"],
  },
});
