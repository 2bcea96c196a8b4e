import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    environment: "jsdom",
    include: ["test/**/*.test.{ts,tsx}"],
    setupFiles: ["test/setup.ts"],
    // Generous bounds (a loaded 2-core machine), not stopwatches: tests wait on conditions.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
