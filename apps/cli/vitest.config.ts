import { defineConfig } from "vitest/config";

// Unit tests beside the code, and tests that run the built CLI (dist/bin.js, built once by the
// global setup) as a child process against a real Packyard on a loopback port.
export default defineConfig({
  test: {
    name: "cli",
    include: ["src/**/*.test.ts"],
    globalSetup: ["src/test-support/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
