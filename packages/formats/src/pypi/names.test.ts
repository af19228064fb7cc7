import { describe, expect, it } from "vitest";
import {
  isValidProjectName,
  normalizeProjectName,
  PypiNameError,
  parseDistributionFilename,
} from "./names.ts";

describe("Python project and file names", () => {
  it("normalizes as PEP 503 says", () => {
    expect(normalizeProjectName("Acme_SDK")).toBe("acme-sdk");
    expect(normalizeProjectName("acme.sdk--core")).toBe("acme-sdk-core");
    expect(normalizeProjectName("ACME__.-sdk")).toBe("acme-sdk");
  });

  it("accepts names PEP 508 allows and nothing else", () => {
    expect(isValidProjectName("acme-sdk")).toBe(true);
    expect(isValidProjectName("a")).toBe(true);
    expect(isValidProjectName("-acme")).toBe(false);
    expect(isValidProjectName("acme sdk")).toBe(false);
    expect(isValidProjectName("../etc")).toBe(false);
  });

  it("reads wheel and sdist file names", () => {
    expect(parseDistributionFilename("acme_sdk-1.2.0-py3-none-any.whl")).toEqual({
      kind: "wheel",
      name: "acme_sdk",
      version: "1.2.0",
      tags: { python: "py3", abi: "none", platform: "any" },
    });
    expect(parseDistributionFilename("acme_sdk-1.2.0-1-cp312-cp312-manylinux_2_17_x86_64.whl").tags).toEqual({
      python: "cp312",
      abi: "cp312",
      platform: "manylinux_2_17_x86_64",
      build: "1",
    });
    expect(parseDistributionFilename("acme_sdk-1.2.0.tar.gz")).toEqual({
      kind: "sdist",
      name: "acme_sdk",
      version: "1.2.0",
    });
    expect(parseDistributionFilename("acme-sdk-1.2.0.tar.gz")).toEqual({
      kind: "sdist",
      name: "acme-sdk",
      version: "1.2.0",
    });
  });

  it("refuses other file names with a named error", () => {
    for (const bad of [
      "acme.exe",
      "acme-1.0-py3-none.whl",
      "acme-1.0-x-py3-none-any.whl",
      "-1.0.tar.gz",
      "acme.tar.gz",
    ])
      expect(() => parseDistributionFilename(bad), bad).toThrow(PypiNameError);
  });
});
