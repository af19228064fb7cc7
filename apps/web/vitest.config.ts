import { defineConfig } from "vitest/config";

// Pure and process-level tests. Database-backed tests live in vitest.db.config.ts.
export default defineConfig({
  test: {
    name: "web",
    include: ["app/**/*.test.ts", "server/**/*.test.ts", "*.test.ts"],
    exclude: ["**/*.db.test.ts", "node_modules/**", "build/**"],
    testTimeout: 30_000,
  },
});
