import { describe, expect, it } from "vitest";
import { signInUrl } from "./redirects.ts";

describe("signInUrl", () => {
  it("carries the path and query of the page that was asked for", () => {
    expect(signInUrl(new URL("http://x/projects?page=2"))).toBe(
      "/auth/signin?redirect=%2Fprojects%3Fpage%3D2",
    );
  });
});
