import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { writeDocBlocks } from "./scripts/doc-blocks.mjs";

// The docs' tested TypeScript blocks become files under test/docs/ before the test files are
// listed, so they run as written (they import "@authmw/react", resolved to the sources).
writeDocBlocks();
const source = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@authmw\/react$/, replacement: source("index.ts") },
      { find: /^@authmw\/react\/core$/, replacement: source("core.ts") },
      { find: /^@authmw\/react\/errors$/, replacement: source("errors.ts") },
      { find: /^@authmw\/react\/testing$/, replacement: source("testing.tsx") },
      { find: /^@authmw\/react\/locales\/([\w-]+)$/, replacement: source("locales/$1.ts") },
    ],
  },
  test: {
    environment: "jsdom",
    include: ["test/**/*.test.{ts,tsx}"],
    setupFiles: ["test/setup.ts"],
    // Generous bounds (a loaded 2-core machine), not stopwatches: tests wait on conditions.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
