import { describe, expect, it } from "vitest";
import { normalizePythonVersion } from "./versions.ts";

describe("normalizePythonVersion", () => {
  // What pip's packaging.version.Version prints for each.
  it.each([
    ["1.0", "1.0"],
    ["v1.0.0", "1.0.0"],
    ["1.0-RC1", "1.0rc1"],
    ["1.0_rc1", "1.0rc1"],
    ["1.0rc", "1.0rc0"],
    ["1.0-1", "1.0.post1"],
    ["1.0.post", "1.0.post0"],
    ["1.0-r2", "1.0.post2"],
    ["1.0.dev", "1.0.dev0"],
    ["1.0a1.dev2", "1.0a1.dev2"],
    ["0!1.0", "1.0"],
    ["01!02.003", "1!2.3"],
    ["1.0+Ubuntu-01", "1.0+ubuntu.1"],
    ["1.0c1", "1.0rc1"],
    ["1.0preview2", "1.0rc2"],
    ["1.0-alpha-3.post-4.dev-5", "1.0a3.post4.dev5"],
    [" 2.0 ", "2.0"],
    ["1.0+abc_def.007", "1.0+abc.def.7"],
  ])("%j is %j", (version, normalized) => {
    expect(normalizePythonVersion(version)).toBe(normalized);
  });

  it.each(["", "1.0-", "latest", "1..0", "1.0+", "1.0 2", "1.0/2"])("refuses %j", (version) => {
    expect(normalizePythonVersion(version)).toBeUndefined();
  });
});
