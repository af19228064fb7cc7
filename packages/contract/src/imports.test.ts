import { describe, expect, it } from "vitest";
import { startImportInput } from "./imports.ts";

const firstErrors = (source: Record<string, unknown>) => {
  const result = startImportInput.safeParse({ source });
  const errors: Record<string, string> = {};
  if (!result.success)
    for (const issue of result.error.issues)
      errors[issue.path.slice(1).join(".") || "source"] ??= issue.message;
  return errors;
};

describe("the import request", () => {
  it("reads a GitHub Releases source with its defaults", () => {
    expect(startImportInput.parse({ source: { kind: "github-releases", repository: "acme/tool" } })).toEqual({
      source: {
        kind: "github-releases",
        repository: "acme/tool",
        includePrereleases: true,
        includeDrafts: false,
      },
    });
  });

  it("reads repository sources; an empty release name means one release per version", () => {
    expect(
      startImportInput.parse({
        source: {
          kind: "apt-repository",
          url: "https://apt.example.com/",
          distribution: "stable",
          components: ["main"],
          release: "",
        },
      }).source,
    ).toEqual({
      kind: "apt-repository",
      url: "https://apt.example.com/",
      distribution: "stable",
      components: ["main"],
    });
    expect(
      startImportInput.parse({
        source: { kind: "yum-repository", url: "http://yum.example.com/el9", release: "legacy" },
      }).source,
    ).toEqual({ kind: "yum-repository", url: "http://yum.example.com/el9", release: "legacy" });
  });

  it.each([
    [
      { kind: "github-releases", repository: "acme" },
      "repository",
      "Repository must be owner/repo, as in github.com/owner/repo",
    ],
    [
      { kind: "github-releases", repository: "acme/.." },
      "repository",
      "Repository must be owner/repo, as in github.com/owner/repo",
    ],
    [
      { kind: "github-releases", repository: "acme/tool", includeDrafts: true },
      "includeDrafts",
      "Drafts are only visible with a token: give one, or leave drafts out",
    ],
    [{ kind: "apt-repository", url: "", distribution: "stable" }, "url", "Repository URL is required"],
    [
      { kind: "apt-repository", url: "ftp://x.example/", distribution: "stable" },
      "url",
      "Repository URL must be an http(s) URL",
    ],
    [
      { kind: "apt-repository", url: "https://x.example/", distribution: "" },
      "distribution",
      "Distribution is required",
    ],
    [
      { kind: "apt-repository", url: "https://x.example/", distribution: "../x" },
      "distribution",
      "Distribution is not a valid name",
    ],
    [
      { kind: "yum-repository", url: "https://x.example/", release: "latest" },
      "release",
      "This version name is reserved",
    ],
    [
      { kind: "svn" },
      "kind",
      "Choose what to import from: github-releases, apt-repository or yum-repository",
    ],
  ])("%j is refused on %s with %j", (source, field, message) => {
    expect(firstErrors(source)).toEqual({ [field]: message });
  });
});
