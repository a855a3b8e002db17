import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    // Above the longest wait a test may need on a loaded machine (an offer sync deferred 60 s: test/helpers/offer-sync.ts).
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores: files run in parallel processes, each on its own cloned database.
    pool: "forks",
    reporters: ["default", "./test/summary-reporter.ts"],
  },
});
