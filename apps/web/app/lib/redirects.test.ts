import { describe, expect, it } from "vitest";
import { safeRedirectPath, signInUrl } from "./redirects.ts";

describe("safeRedirectPath", () => {
  it.each([
    ["/projects", "/projects"],
    ["/projects/demo?tab=files#top", "/projects/demo?tab=files#top"],
    ["/a/../dashboard", "/dashboard"],
  ])("follows the same-site path %j", (target, expected) => {
    expect(safeRedirectPath(target)).toBe(expected);
  });

  it.each([
    "https://evil.example/",
    "http://evil.example",
    "//evil.example",
    "//evil.example/path",
    "/\\evil.example",
    "\\\\evil.example",
    "javascript:alert(1)",
    "evil.example",
    "/\t/evil.example",
    " //evil.example",
    "",
  ])("refuses %j", (target) => {
    expect(safeRedirectPath(target)).toBe("/dashboard");
  });

  it("uses the given fallback", () => {
    expect(safeRedirectPath(null, "/onboarding?plan=pro")).toBe("/onboarding?plan=pro");
  });
});

describe("signInUrl", () => {
  it("carries the path and query of the page that was asked for", () => {
    expect(signInUrl(new URL("http://x/projects?page=2"))).toBe(
      "/auth/signin?redirect=%2Fprojects%3Fpage%3D2",
    );
  });
});
