import { compareDebianVersions } from "@packyard/formats/deb/debian-version.ts";
import { describe, expect, it } from "vitest";
import { repositoryLocation } from "./http-fetch.ts";
import { fileNameOf, groupIntoReleases, pathUrl, type RepositoryPackage } from "./repository-releases.ts";
import { ImportError } from "./source.ts";

const location = repositoryLocation({ url: "https://repo.example.com/debian" });
const signal = new AbortController().signal;

function pkg(path: string, version: string, sha: string, size = 10): RepositoryPackage {
  return {
    version,
    filename: fileNameOf(path),
    url: pathUrl(path, location.base),
    size,
    digests: [{ algorithm: "sha256", hex: sha.repeat(64) }],
  };
}

const options = { location, deps: {}, compareVersions: compareDebianVersions };

describe("groupIntoReleases", () => {
  it("groups by version, oldest first, files sorted, the same file listed twice kept once", () => {
    const releases = groupIntoReleases(
      [
        pkg("pool/main/b/b/b_1.10-1_all.deb", "1.10-1", "b"),
        pkg("pool/main/a/a/a_1.9-1_amd64.deb", "1.9-1", "a"),
        pkg("pool/main/c/c/c_1.9-1_all.deb", "1.9-1", "c"),
        pkg("pool/main/c/c/c_1.9-1_all.deb", "1.9-1", "c"),
        pkg("pool/contrib/c/c/c_1.9-1_all.deb", "1.9-1", "c"),
      ],
      options,
    );
    expect(releases.map((r) => [r.version, r.files.map((f) => f.filename)])).toEqual([
      ["1.9-1", ["a_1.9-1_amd64.deb", "c_1.9-1_all.deb"]],
      ["1.10-1", ["b_1.10-1_all.deb"]],
    ]);
  });

  it("puts everything into the named release", () => {
    const releases = groupIntoReleases(
      [pkg("pool/a_1_all.deb", "1", "a"), pkg("pool/b_2_all.deb", "2", "b")],
      { ...options, named: "2024.11" },
    );
    expect(releases.map((r) => [r.version, r.files.length])).toEqual([["2024.11", 2]]);
  });

  it("fails only that release when two different files share a name", async () => {
    const releases = groupIntoReleases(
      [
        pkg("pool/main/x/x_1_all.deb", "1", "a"),
        pkg("pool/contrib/x/x_1_all.deb", "1", "b"),
        pkg("pool/main/y/y_2_all.deb", "2", "c"),
      ],
      options,
    );
    const clash = releases[0]!.files[0]!;
    const error = await clash.open(signal).catch((e) => e);
    expect(error).toBeInstanceOf(ImportError);
    expect(error).toMatchObject({ code: "SOURCE_INVALID", subject: "x_1_all.deb" });
    expect(error.message).toBe(
      "x_1_all.deb: the repository lists two different files with this name (https://repo.example.com/debian/pool/main/x/x_1_all.deb and https://repo.example.com/debian/pool/contrib/x/x_1_all.deb)",
    );
    expect(releases[1]!.files.map((f) => f.filename)).toEqual(["y_2_all.deb"]);
  });

  it("percent-encodes each segment of an index path", () => {
    expect(pathUrl("pool/main/l/lib/lib_1.0+dfsg-1 x#y.deb", location.base).href).toBe(
      "https://repo.example.com/debian/pool/main/l/lib/lib_1.0%2Bdfsg-1%20x%23y.deb",
    );
  });
});
