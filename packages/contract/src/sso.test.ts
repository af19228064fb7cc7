// The pure rules of single sign-on (docs/sso.md): which role an IdP's groups give, how groups
// arrive, and which addresses a provider's domain covers.
import { describe, expect, it } from "vitest";
import { groupsOf, isAtDomain, roleFromGroups } from "./sso.ts";

describe("roleFromGroups", () => {
  const mapping = {
    "packyard-admins": "admin",
    "packyard-publishers": "publisher",
    readers: "viewer",
  } as const;

  it("gives the highest role any group maps to", () => {
    expect(roleFromGroups(["readers", "packyard-admins", "packyard-publishers"], mapping, "viewer")).toEqual({
      role: "admin",
      mapped: true,
    });
  });

  it("falls back to the default role when no group maps, and says so", () => {
    expect(roleFromGroups(["everyone"], mapping, "publisher")).toEqual({ role: "publisher", mapped: false });
    expect(roleFromGroups([], {}, "viewer")).toEqual({ role: "viewer", mapped: false });
  });

  it("compares group names exactly and ignores inherited keys", () => {
    expect(roleFromGroups(["Packyard-Admins", "constructor", "toString"], mapping, "viewer").mapped).toBe(
      false,
    );
  });
});

describe("groupsOf", () => {
  it("takes a list, one name, or nothing", () => {
    expect(groupsOf(["a", 3, "b"])).toEqual(["a", "b"]);
    expect(groupsOf("a")).toEqual(["a"]);
    expect(groupsOf("")).toEqual([]);
    expect(groupsOf(undefined)).toEqual([]);
  });
});

describe("isAtDomain", () => {
  it("covers the domain and the domains below it, not look-alikes", () => {
    expect(isAtDomain("Sam@ACME.com", "acme.com")).toBe(true);
    expect(isAtDomain("sam@eu.acme.com", "acme.com")).toBe(true);
    expect(isAtDomain("sam@notacme.com", "acme.com")).toBe(false);
    expect(isAtDomain("sam@acme.com.evil.test", "acme.com")).toBe(false);
    expect(isAtDomain("acme.com", "acme.com")).toBe(false);
  });
});
