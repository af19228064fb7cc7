import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      "apps/web/vitest.config.ts",
      "apps/web/vitest.db.config.ts",
      "packages/formats/vitest.config.ts",
      "packages/contract/vitest.config.ts",
      "apps/cli/vitest.config.ts",
    ],
  },
});
