import { importKinds } from "@packyard/contract";
import { describe, expect, it } from "vitest";
import { classifyFile } from "./files/file-types.ts";
import { formatOfFile, formatOfKind, formatOfRoute, formats, parseUploadTargets } from "./registry.ts";

/** Filenames of packages as they are uploaded (test/served-indexes.ts uploads these). */
const fixtures: Record<string, string[]> = {
  apt: ["hello_1.0.0_amd64.deb", "hello-doc_1.1.0_all.deb", "hello_2.0.0~rc1_amd64.deb", "TOOL.DEB"],
  yum: ["hello-1.0.0-1.x86_64.rpm", "hello-doc-1.1.0-1.noarch.rpm", "hello-1.0.0-1.src.rpm", "Tool.RPM"],
};

describe("the format registry", () => {
  it("has one format per id, file kind and route prefix", () => {
    for (const key of ["id", "fileKind", "routePrefix"] as const) {
      const values = formats.map((format) => format[key]);
      expect(new Set(values).size, key).toBe(values.length);
    }
  });

  it("gives every format its own fixtures' filenames, and no other format's", () => {
    expect(Object.keys(fixtures).sort()).toEqual(formats.map((format) => format.id).sort());
    for (const format of formats) {
      for (const filename of fixtures[format.id] ?? []) {
        expect(formatOfFile(filename)?.id, filename).toBe(format.id);
        // The release file's kind and Content-Type are the format's.
        expect(classifyFile(filename), filename).toEqual({
          kind: format.fileKind,
          contentType: format.contentType,
        });
      }
    }
  });

  it("leaves plain release files to no format", () => {
    for (const filename of [
      "tool.tar.gz",
      "tool",
      "hello.deb.asc",
      "SHA256SUMS",
      "hello.debx",
      "notes.rpm.txt",
    ])
      expect(formatOfFile(filename), filename).toBeUndefined();
  });

  it("finds a format by its file kind and by its route prefix", () => {
    for (const format of formats) {
      expect(formatOfKind(format.fileKind)).toBe(format);
      expect(formatOfRoute(format.routePrefix)).toBe(format);
    }
    expect(formatOfKind("archive")).toBeUndefined();
    expect(formatOfRoute("releases")).toBeUndefined();
  });

  it("defaults an upload's target when no field is given, and refuses a bad one", () => {
    const none = () => undefined;
    expect(formatOfRoute("deb")?.parseTarget(none)).toEqual({ suite: "stable", component: "main" });
    expect(formatOfRoute("rpm")?.parseTarget(none)).toBe("");
    const bad = () => "Not Valid";
    for (const format of formats) expect(() => format.parseTarget(bad), format.id).toThrow();
  });

  it("reads every format's target from an upload's fields, each checked", () => {
    const fields: Record<string, string> = { distribution: "testing", group: "el9" };
    expect(parseUploadTargets((name) => fields[name])).toEqual({
      apt: { suite: "testing", component: "main" },
      yum: "el9",
    });
    // A bad field is refused whatever the file; APT's first, as the upload API always did.
    const bad: Record<string, string> = { component: "Main", group: "repodata" };
    expect(() => parseUploadTargets((name) => bad[name])).toThrow(/component must be/);
  });

  it("imports every repository kind of the contract through one format", () => {
    const kinds = formats.flatMap((format) => (format.importSource ? [format.importSource.kind] : []));
    expect(kinds.sort()).toEqual(importKinds.filter((kind) => kind !== "github-releases").sort());
  });
});
