import { defineConfig } from "vitest/config";

// Tests backed by a database: SQLite by default, PostgreSQL when TEST_DATABASE_URL is set
// (CI runs them on both).
export default defineConfig({
  test: {
    name: "web-db",
    include: ["**/*.db.test.ts"],
    exclude: ["node_modules/**", "build/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
