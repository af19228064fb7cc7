import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "web",
          include: ["app/**/*.test.ts", "server/**/*.test.ts"],
          exclude: ["**/*.db.test.ts"],
        },
      },
      {
        // Tests backed by a database: run on SQLite, and again on PostgreSQL in CI.
        test: {
          name: "web-db",
          include: ["**/*.db.test.ts"],
          exclude: ["node_modules/**", "build/**"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
