import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Three files at once. Vitest's default on this two-core machine is one (the cores less one),
    // but most files wait on servers, apt-get, dnf, pip and npm far more than they compute.
    // Measured on the whole lane (`CI=true npx vitest run`): 792 s with the default, 467 s with
    // three, 500 s with four (and one upload test reset under that load). The PostgreSQL lane
    // (.ci/run) asks for four.
    maxWorkers: 3,
    projects: [
      "apps/web/vitest.config.ts",
      "apps/web/vitest.db.config.ts",
      "packages/formats/vitest.config.ts",
      "packages/contract/vitest.config.ts",
      "apps/cli/vitest.config.ts",
    ],
  },
});
