import { describe, expect, it } from "vitest";
import { safeRedirectPath, sameSitePath } from "./redirects.ts";

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

  // Targets that start with a single `/` but leave the site once dot segments are resolved
  // or percent-escapes decoded: the resolved path must not begin with `//` or `/\`.
  it.each([
    "/..//evil.example",
    "/../..//evil.example/path?x=1",
    "/a/../..//evil.example",
    "/.//evil.example",
    "/./\\evil.example",
    "/%2e%2e//evil.example",
    "/%2E%2E//evil.example",
    "/.%2e//evil",
    "/%2e.//evil",
    "/%2e//evil",
    "/\\evil.example",
    "/%5c%5cevil.example",
    "/%5Cevil.example",
    "/%5c/evil.example",
    "///evil",
    "////evil",
    "/%2f%2fevil",
    "/%2F%2Fevil",
    "/%2fevil",
    "/%2F/evil.example",
    "/%252f%252fevil",
    "/%25252F%25252Fevil",
    "/%2e%2e/%2fevil",
    "/a/..%2f..%2f/evil",
    "/%09/evil.example",
    "/%0a/evil.example",
    "/%0d%0a//evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "/%",
  ])("refuses %j, which resolves or decodes to another host", (target) => {
    expect(safeRedirectPath(target)).toBe("/dashboard");
  });

  it.each([
    ["/projects?page=2&sort=name", "/projects?page=2&sort=name"],
    ["/projects/demo/releases/1.2.0?tab=files#sha", "/projects/demo/releases/1.2.0?tab=files#sha"],
    ["/dashboard?next=//evil.example", "/dashboard?next=//evil.example"],
    ["/search?q=%2F%2Fevil", "/search?q=%2F%2Fevil"],
    ["/releases/ada/tool/1.0%2Bbuild", "/releases/ada/tool/1.0%2Bbuild"],
    ["/releases/ada/tool/a%2Fb", "/releases/ada/tool/a%2Fb"],
    ["/onboarding?plan=pro&annual=true", "/onboarding?plan=pro&annual=true"],
    ["/%2e%2e/projects", "/projects"],
    ["/a/./b/../c?x=1", "/a/c?x=1"],
  ])("still follows the same-site path %j", (target, expected) => {
    expect(safeRedirectPath(target)).toBe(expected);
  });

  it("uses the given fallback", () => {
    expect(safeRedirectPath(null, "/onboarding?plan=pro")).toBe("/onboarding?plan=pro");
  });
});

describe("sameSitePath", () => {
  it("gives the resolved path, or null for a target that leaves the site", () => {
    expect(sameSitePath("/a/../auth/signin?x=1")).toBe("/auth/signin?x=1");
    expect(sameSitePath("/..//evil.example/phish")).toBeNull();
    expect(sameSitePath(undefined)).toBeNull();
  });
});
