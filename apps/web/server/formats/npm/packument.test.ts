// The packument's pure parts: file and tarball names, the dist-tags served when versions are
// gone, the deprecation a yanked release shows, and the abbreviated form's fields.
import { describe, expect, it } from "vitest";
import {
  buildPackument,
  releaseFilename,
  servedDeprecation,
  servedDistTags,
  tarballSegment,
  tarballUrl,
  versionOfTarball,
} from "./packument.ts";
import type { NpmVersionRow } from "./storage.ts";

const at = (version: string, createdAt = "2026-01-01T00:00:00.000Z") => ({ version, createdAt });

function row(version: string, manifest: Record<string, unknown> = {}, extra: Partial<NpmVersionRow> = {}) {
  return {
    fileId: `f-${version}`,
    name: "@acme/sdk",
    version,
    integrity: "sha512-x",
    shasum: "ab",
    deprecated: null,
    provenance: null,
    publishedBy: "acme",
    createdAt: `2026-01-0${version.length % 9}T00:00:00.000Z`,
    releaseVersion: version,
    yanked: false,
    yankedReason: null,
    filename: releaseFilename("@acme/sdk", version),
    size: 10,
    manifest: JSON.stringify({ name: "@acme/sdk", version, ...manifest }),
    ...extra,
  } satisfies NpmVersionRow;
}

describe("npm file names", () => {
  it("names the release file as npm pack does and the tarball as npm's registry does", () => {
    expect(releaseFilename("@acme/sdk", "1.2.0")).toBe("acme-sdk-1.2.0.tgz");
    expect(releaseFilename("sdk", "1.2.0")).toBe("sdk-1.2.0.tgz");
    expect(tarballSegment("@acme/sdk", "1.2.0")).toBe("sdk-1.2.0.tgz");
    expect(tarballUrl("http://h/npm/o/p/", "@acme/sdk", "1.2.0")).toBe(
      "http://h/npm/o/p/@acme/sdk/-/sdk-1.2.0.tgz",
    );
  });

  it("reads the version back from either tarball name, and nothing from another package's", () => {
    expect(versionOfTarball("@acme/sdk", "sdk-1.2.0-beta.1.tgz")).toBe("1.2.0-beta.1");
    expect(versionOfTarball("@acme/sdk", "acme-sdk-1.2.0.tgz")).toBe("1.2.0");
    expect(versionOfTarball("sdk", "other-1.2.0.tgz")).toBeUndefined();
    expect(versionOfTarball("sdk", "sdk-1.2.0.zip")).toBeUndefined();
  });
});

describe("servedDistTags", () => {
  it("leaves out tags on versions that are gone and puts latest on the highest release left", () => {
    const stored = new Map([
      ["latest", "3.0.0"],
      ["beta", "2.1.0-beta.1"],
      ["old", "0.9.0"],
    ]);
    expect(servedDistTags(stored, [at("1.0.0"), at("2.0.0"), at("2.1.0-beta.1"), at("1.10.0")])).toEqual({
      latest: "2.0.0",
      beta: "2.1.0-beta.1",
    });
  });

  it("falls back to a prerelease only when nothing else is left", () => {
    expect(servedDistTags(new Map(), [at("1.0.0-rc.1"), at("1.0.0-rc.2")])).toEqual({ latest: "1.0.0-rc.2" });
  });
});

describe("the packument", () => {
  it("shows a yanked release's version as deprecated unless it has its own message", () => {
    const base = { deprecated: null, yanked: true, yankedReason: "bad", releaseVersion: "1.0.0" };
    expect(servedDeprecation(base)).toBe("The release 1.0.0 was yanked: bad");
    expect(servedDeprecation({ ...base, deprecated: "use 2" })).toBe("use 2");
    expect(servedDeprecation({ ...base, yanked: false })).toBeNull();
  });

  it("keeps the install fields in the abbreviated form, and the readme of latest at the top of the full one", () => {
    const rows = [
      row("1.0.0", {
        readme: "# one",
        scripts: { postinstall: "node x" },
        description: "d",
        bin: { sdk: "cli.js" },
      }),
      row("1.1.0", { readme: "# two", engines: { node: ">=20" }, description: "newer" }),
    ];
    const input = { name: "@acme/sdk", rows, storedTags: new Map(), registry: "http://h/npm/o/p/" };
    const corgi = buildPackument({ ...input, abbreviated: true }) as { versions: Record<string, unknown> };
    expect(corgi.versions["1.0.0"]).toEqual({
      name: "@acme/sdk",
      version: "1.0.0",
      bin: { sdk: "cli.js" },
      hasInstallScript: true,
      dist: { integrity: "sha512-x", shasum: "ab", tarball: "http://h/npm/o/p/@acme/sdk/-/sdk-1.0.0.tgz" },
    });
    const full = buildPackument({ ...input, abbreviated: false }) as Record<string, unknown>;
    expect(full).toMatchObject({ readme: "# two", description: "newer", "dist-tags": { latest: "1.1.0" } });
    expect((full.versions as Record<string, { readme?: string }>)["1.0.0"]!.readme).toBeUndefined();
  });
});
