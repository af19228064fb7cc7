import { describe, expect, it } from "vitest";
import { cacheControl } from "./cache-control.ts";

describe("cacheControl", () => {
  it("keeps a private project's files out of shared caches, whatever they are", () => {
    for (const kind of ["immutable", "entry", "latest", "script"] as const)
      expect(cacheControl({ kind, shared: false })).toBe("private, no-store");
  });

  it("caches a public project's files by how they change", () => {
    expect(cacheControl({ kind: "immutable", shared: true })).toBe("public, max-age=31536000, immutable");
    expect(cacheControl({ kind: "entry", shared: true })).toBe("public, max-age=30, must-revalidate");
    expect(cacheControl({ kind: "latest", shared: true })).toBe("public, max-age=60");
  });

  it("caches a public project's setup scripts and public keys for five minutes", () => {
    expect(cacheControl({ kind: "script", shared: true })).toBe("public, max-age=300");
  });
});
