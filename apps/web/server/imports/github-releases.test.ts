// The GitHub Releases source against a fake GitHub API on 127.0.0.1 (test/fake-github.ts):
// pages, the mapping of tags, names, bodies, drafts and prereleases, asset bytes through the
// redirect, and each failure's code.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeGithub, startFakeGithub } from "../../test/fake-github.ts";
import { GithubReleasesSource, nextLink, versionFromTag } from "./github-releases.ts";
import { ImportError, type SourceFile } from "./source.ts";

let github: FakeGithub;
const bytes = (text: string) => new TextEncoder().encode(text);

beforeAll(async () => {
  github = await startFakeGithub();
  github.repositories.set("acme/tool", {
    releases: [
      {
        tag: "v1.0.0",
        name: "First",
        body: "Notes of **1.0.0**",
        publishedAt: "2024-01-01T00:00:00Z",
        assets: [{ name: "tool-1.0.0.tar.gz", bytes: bytes("one") }],
      },
      { tag: "v1.1.0", name: "", body: "", publishedAt: "2024-02-01T00:00:00Z", assets: [] },
      { tag: "2.0.0-rc.1", prerelease: true, publishedAt: "2024-03-01T00:00:00Z", assets: [] },
      { tag: "v2.0.0", draft: true, publishedAt: "2024-04-01T00:00:00Z", assets: [] },
      { tag: "version-x", publishedAt: "2024-05-01T00:00:00Z", assets: [] },
    ],
  });
  github.repositories.set("acme/private", {
    token: "ghp_right",
    releases: [
      { tag: "v3.0.0", draft: true, publishedAt: "2024-01-01T00:00:00Z", assets: [] },
      {
        tag: "v1.0.0",
        publishedAt: "2024-01-01T00:00:00Z",
        assets: [
          { name: "ok.bin", bytes: bytes("fine") },
          { name: "broken.bin", bytes: bytes("x"), broken: true },
          { name: "short.bin", bytes: bytes("abc"), statedSize: 10 },
        ],
      },
    ],
  });
  github.repositories.set("acme/limited", { rateLimited: true, releases: [] });
});
afterAll(() => github.close());

function source(
  repository: string,
  options: Partial<ConstructorParameters<typeof GithubReleasesSource>[0]> = {},
) {
  return new GithubReleasesSource({
    apiUrl: github.url,
    repository,
    includePrereleases: true,
    includeDrafts: false,
    // The fake GitHub is on 127.0.0.1.
    allowPrivate: true,
    ...options,
  });
}

async function read(file: SourceFile): Promise<string> {
  return new Response(await file.open(AbortSignal.timeout(10_000))).text();
}

async function failure(promise: Promise<unknown>): Promise<ImportError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ImportError);
  return error as ImportError;
}

describe("GitHub Releases source", () => {
  it("reads every page the Link header names (4 releases, 2 a page; the draft is not listed)", async () => {
    github.maxPerPage = 2;
    github.requests.length = 0;
    try {
      const releases = await source("acme/tool").listReleases(AbortSignal.timeout(10_000));
      expect(releases.map((r) => r.version).sort()).toEqual(["1.0.0", "1.1.0", "2.0.0-rc.1", "version-x"]);
      const pages = github.requests.filter((r) => r.host === "api").map((r) => r.path);
      expect(pages).toEqual([
        "/repos/acme/tool/releases?per_page=100",
        "/repos/acme/tool/releases?per_page=100&page=2",
      ]);
    } finally {
      github.maxPerPage = 100;
    }
  });

  it("maps tag to version, name to title and body to notes; leaves drafts out and prereleases when asked", async () => {
    const releases = await source("acme/tool").listReleases(AbortSignal.timeout(10_000));
    const first = releases.find((r) => r.version === "1.0.0")!;
    expect(first).toMatchObject({
      title: "First",
      notes: "Notes of **1.0.0**",
      publishedAt: "2024-01-01T00:00:00Z",
    });
    expect(first.files.map((f) => [f.filename, f.size])).toEqual([["tool-1.0.0.tar.gz", 3]]);
    expect(releases.find((r) => r.version === "1.1.0")).toMatchObject({ title: null, notes: null });
    expect(releases.some((r) => r.version === "2.0.0")).toBe(false);

    const stable = await source("acme/tool", { includePrereleases: false }).listReleases(
      AbortSignal.timeout(10_000),
    );
    expect(stable.map((r) => r.version)).not.toContain("2.0.0-rc.1");
  });

  it("downloads an asset through GitHub's redirect, the token sent to the API only", async () => {
    github.requests.length = 0;
    const releases = await source("acme/private", { token: "ghp_right" }).listReleases(
      AbortSignal.timeout(10_000),
    );
    expect(releases.map((r) => r.version)).toEqual(["1.0.0"]);
    const ok = releases[0]!.files.find((f) => f.filename === "ok.bin")!;
    expect(await read(ok)).toBe("fine");
    const api = github.requests.filter((r) => r.host === "api");
    const download = github.requests.filter((r) => r.host === "download");
    expect(api.every((r) => r.authorization === "Bearer ghp_right")).toBe(true);
    expect(download).toHaveLength(1);
    expect(download[0]!.authorization).toBeUndefined();
  });

  it("lists drafts only when asked, with a token", async () => {
    const releases = await source("acme/private", { token: "ghp_right", includeDrafts: true }).listReleases(
      AbortSignal.timeout(10_000),
    );
    expect(releases.map((r) => r.version).sort()).toEqual(["1.0.0", "3.0.0"]);
  });

  it("answers each failure with its code", async () => {
    const signal = AbortSignal.timeout(10_000);
    const missing = await failure(source("acme/nothing").listReleases(signal));
    expect(missing.code).toBe("SOURCE_NOT_FOUND");
    expect(missing.message).toMatch(/no public repository acme\/nothing.*give a token/);
    expect((await failure(source("acme/private").listReleases(signal))).code).toBe("SOURCE_NOT_FOUND");
    const wrong = await failure(source("acme/private", { token: "ghp_wrong" }).listReleases(signal));
    expect(wrong.code).toBe("SOURCE_AUTH_FAILED");
    expect(wrong.message).toMatch(/refused the token/);
    const limited = await failure(source("acme/limited").listReleases(signal));
    expect(limited.code).toBe("SOURCE_AUTH_FAILED");
    expect(limited.message).toMatch(/rate limit is used up until 2030-01-01.*a token raises the limit/);

    const [release] = await source("acme/private", { token: "ghp_right" }).listReleases(signal);
    const broken = await failure(read(release!.files.find((f) => f.filename === "broken.bin")!));
    expect(broken).toMatchObject({ code: "SOURCE_UNREACHABLE", subject: "broken.bin" });
    const short = await failure(read(release!.files.find((f) => f.filename === "short.bin")!));
    expect(short).toMatchObject({ code: "CHECKSUM_MISMATCH", subject: "short.bin" });
    expect(short.message).toMatch(/3 bytes where GitHub states 10/);
  });

  it("cannot reach a server that is not there", async () => {
    const error = await failure(
      new GithubReleasesSource({
        apiUrl: "http://127.0.0.1:1",
        repository: "acme/tool",
        includePrereleases: true,
        includeDrafts: false,
        allowPrivate: true,
      }).listReleases(AbortSignal.timeout(10_000)),
    );
    expect(error.code).toBe("SOURCE_UNREACHABLE");
  });
});

describe("tags and links", () => {
  it.each([
    ["v1.2.0", "1.2.0"],
    ["V2", "2"],
    ["1.2.0", "1.2.0"],
    ["version-3", "version-3"],
    ["v", "v"],
    ["vendor-1", "vendor-1"],
  ])("tag %s is version %s", (tag, version) => {
    expect(versionFromTag(tag)).toBe(version);
  });

  it("finds rel=next in a Link header", () => {
    expect(
      nextLink(
        '<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=5>; rel="last"',
      ),
    ).toBe("https://api.github.com/x?page=2");
    expect(nextLink('<https://api.github.com/x?page=1>; rel="prev"')).toBeUndefined();
    expect(nextLink(null)).toBeUndefined();
  });
});
