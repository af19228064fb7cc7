// The APT repository source against a real repository: built here with reprepro (signed
// InRelease, two components, two architectures; and an unsigned Packages.xz-only suite), served
// by a static server on 127.0.0.1, with and without basic auth.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  aptRepositoryTools,
  buildAptRepository,
  debFileName,
  type TestAptRepository,
  tamper,
  testDebPackages,
} from "../../../test/source-repositories.ts";
import { type StaticServer, startStaticServer } from "../../../test/static-server.ts";
import { makeTempDir, removeTempDirs } from "../../../test/temp-dirs.ts";
import { guardedFetch } from "../../imports/http-fetch.ts";
import { ImportError, type SourceRelease } from "../../imports/source.ts";
import { createAptRepositorySource as createSource, releaseVersionOfDebianVersion } from "./import.ts";

// The test repositories are on 127.0.0.1: allowed here as WEBHOOK_ALLOW_PRIVATE allows it.
const createAptRepositorySource = (
  input: Parameters<typeof createSource>[0],
  deps: Parameters<typeof createSource>[1] = {},
) => createSource(input, { fetch: guardedFetch({ allowPrivate: true }), ...deps });

const hasTools = requireTools(aptRepositoryTools);

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function failure(run: () => Promise<unknown>): Promise<ImportError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ImportError) return error;
    throw error;
  }
  throw new Error("expected an ImportError");
}

function summary(releases: SourceRelease[]) {
  return releases.map((release) => ({
    version: release.version,
    files: release.files.map((file) => file.filename),
  }));
}

const signal = new AbortController().signal;

describe("releaseVersionOfDebianVersion", () => {
  it("drops the epoch and keeps the Debian revision", () => {
    expect(releaseVersionOfDebianVersion("2:1.4-1")).toBe("1.4-1");
    expect(releaseVersionOfDebianVersion("1.4-1+deb12u1")).toBe("1.4-1+deb12u1");
    expect(releaseVersionOfDebianVersion("1.0~rc1")).toBe("1.0~rc1");
  });
});

describe.skipIf(!hasTools)("createAptRepositorySource against reprepro", () => {
  let repository: TestAptRepository;
  let server: StaticServer;
  let privateServer: StaticServer;

  beforeAll(async () => {
    repository = buildAptRepository(makeTempDir("packyard-apt-import-"));
    server = await startStaticServer(repository.root);
    privateServer = await startStaticServer(repository.root, {
      basicAuth: { username: "ci", password: "s3cret" },
    });
  });

  afterAll(async () => {
    await server?.stop();
    await privateServer?.stop();
    removeTempDirs();
  });

  it("lists one release per version with every package once, from InRelease", async () => {
    const source = createAptRepositorySource({ url: server.url, distribution: "stable" });
    const releases = await source.listReleases(signal);
    expect(summary(releases)).toEqual([
      { version: "0.5-1", files: ["hello-extra_0.5-1_amd64.deb"] },
      {
        version: "1.0-1",
        files: ["hello-data_1.0-1_all.deb", "hello-epoch_1.0-1_all.deb", "hello-tool_1.0-1_amd64.deb"],
      },
      { version: "1.0+dfsg-1", files: ["hello-plus_1.0+dfsg-1_amd64.deb"] },
      { version: "1.1-1", files: ["hello-next_1.1-1_amd64.deb"] },
    ]);
    // InRelease was read; Release (unsigned) was not needed.
    expect(server.requests).toContain("/dists/stable/InRelease");
    expect(server.requests).not.toContain("/dists/stable/Release");
    // The gzip indexes were read, not the uncompressed ones.
    expect(server.requests).toContain("/dists/stable/main/binary-arm64/Packages.gz");
    expect(server.requests).not.toContain("/dists/stable/main/binary-amd64/Packages");
  });

  it("opens each package as the exact bytes of the pool, with its size", async () => {
    const source = createAptRepositorySource({ url: server.url.replace(/\/$/, ""), distribution: "stable" });
    const releases = await source.listReleases(signal);
    const files = releases.flatMap((release) => release.files);
    expect(files).toHaveLength(6);
    for (const file of files) {
      const expected = readFileSync(repository.pool.get(file.filename)!);
      expect(file.size).toBe(expected.length);
      const bytes = await readAll(await file.open(signal));
      expect(createHash("sha256").update(bytes).digest("hex")).toBe(
        createHash("sha256").update(expected).digest("hex"),
      );
    }
    expect(server.requests).toContain("/pool/main/h/hello-plus/hello-plus_1.0+dfsg-1_amd64.deb");
  });

  it("reads only the components asked for", async () => {
    const source = createAptRepositorySource({
      url: server.url,
      distribution: "stable",
      components: ["contrib"],
    });
    expect(summary(await source.listReleases(signal))).toEqual([
      { version: "0.5-1", files: ["hello-extra_0.5-1_amd64.deb"] },
    ]);
  });

  it("puts every package into the release the operator names", async () => {
    const source = createAptRepositorySource({ url: server.url, distribution: "stable", release: "2024.1" });
    const releases = await source.listReleases(signal);
    expect(summary(releases)).toEqual([
      {
        version: "2024.1",
        files: testDebPackages
          .filter((pkg) => pkg.distribution === "stable")
          .map(debFileName)
          .sort(),
      },
    ]);
  });

  it("falls back to Release and reads Packages.xz when that is all there is", async () => {
    const source = createAptRepositorySource({ url: server.url, distribution: "legacy" });
    const releases = await source.listReleases(signal);
    expect(summary(releases)).toEqual([{ version: "0.1-1", files: ["hello-legacy_0.1-1_all.deb"] }]);
    expect(server.requests).toContain("/dists/legacy/Release");
    expect(server.requests).toContain("/dists/legacy/main/binary-amd64/Packages.xz");
    const bytes = await readAll(await releases[0]!.files[0]!.open(signal));
    expect(bytes.equals(readFileSync(repository.pool.get("hello-legacy_0.1-1_all.deb")!))).toBe(true);
  });

  it("refuses a package whose bytes do not match the index, naming it", async () => {
    const source = createAptRepositorySource({ url: server.url, distribution: "stable" });
    const releases = await source.listReleases(signal);
    const file = releases
      .flatMap((release) => release.files)
      .find((f) => f.filename === "hello-tool_1.0-1_amd64.deb")!;
    const path = repository.pool.get(file.filename)!;
    const original = tamper(path);
    try {
      const error = await failure(async () => readAll(await file.open(signal)));
      expect(error.code).toBe("CHECKSUM_MISMATCH");
      expect(error.subject).toBe("hello-tool_1.0-1_amd64.deb");
      const expectedSha = createHash("sha256").update(original).digest("hex");
      const actualSha = createHash("sha256").update(readFileSync(path)).digest("hex");
      expect(error.message).toBe(
        `hello-tool_1.0-1_amd64.deb: expected sha256 ${expectedSha}; the bytes do not match the checksum the index gives`,
      );
      expect(error.message).not.toContain(actualSha);

      // A file of another size fails as well, as soon as it is longer than the index says.
      writeFileSync(path, Buffer.concat([original, Buffer.from("more")]));
      const longer = await failure(async () => readAll(await file.open(signal)));
      expect(longer.code).toBe("CHECKSUM_MISMATCH");
      expect(longer.message).toBe(
        `hello-tool_1.0-1_amd64.deb: expected ${original.length} bytes, got more than that`,
      );
    } finally {
      writeFileSync(path, original);
    }
    // The other packages still open.
    const other = releases
      .flatMap((release) => release.files)
      .find((f) => f.filename === "hello-next_1.1-1_amd64.deb")!;
    expect((await readAll(await other.open(signal))).length).toBe(other.size);
  });

  it("holds back the last chunk of a file that does not match", async () => {
    const source = createAptRepositorySource({ url: server.url, distribution: "stable" });
    const file = (await source.listReleases(signal))
      .flatMap((release) => release.files)
      .find((f) => f.filename === "hello-data_1.0-1_all.deb")!;
    const path = repository.pool.get(file.filename)!;
    const original = tamper(path);
    try {
      const reader = (await file.open(signal)).getReader();
      let received = 0;
      const error = await failure(async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          received += value.length;
        }
      });
      expect(error.code).toBe("CHECKSUM_MISMATCH");
      expect(received).toBeLessThan(original.length);
    } finally {
      writeFileSync(path, original);
    }
  });

  it("refuses an index that does not match the Release file", async () => {
    const index = `${repository.root}/dists/stable/contrib/binary-amd64/Packages.gz`;
    const original = tamper(index);
    try {
      const error = await failure(() =>
        createAptRepositorySource({ url: server.url, distribution: "stable" }).listReleases(signal),
      );
      expect(error.code).toBe("CHECKSUM_MISMATCH");
      expect(error.message).toContain(
        `${server.url}dists/stable/contrib/binary-amd64/Packages.gz does not match`,
      );
    } finally {
      writeFileSync(index, original);
    }
  });

  it("refuses an xz index that does not match, and reads it again once fixed (the decoder is released)", async () => {
    const index = `${repository.root}/dists/legacy/main/binary-amd64/Packages.xz`;
    const original = tamper(index);
    try {
      const error = await failure(() =>
        createAptRepositorySource({ url: server.url, distribution: "legacy" }).listReleases(signal),
      );
      expect(error.code).toBe("CHECKSUM_MISMATCH");
      expect(error.subject).toBe(`${server.url}dists/legacy/main/binary-amd64/Packages.xz`);
    } finally {
      writeFileSync(index, original);
    }
    const releases = await createAptRepositorySource({
      url: server.url,
      distribution: "legacy",
    }).listReleases(signal);
    expect(releases.map((release) => release.version)).toEqual(["0.1-1"]);
  });

  it("uses basic auth, and says so when the credentials are wrong", async () => {
    const good = createAptRepositorySource({
      url: privateServer.url,
      distribution: "stable",
      username: "ci",
      password: "s3cret",
    });
    const releases = await good.listReleases(signal);
    expect(releases.map((release) => release.version)).toEqual(["0.5-1", "1.0-1", "1.0+dfsg-1", "1.1-1"]);
    const bytes = await readAll(await releases[0]!.files[0]!.open(signal));
    expect(bytes.length).toBe(releases[0]!.files[0]!.size);

    // Credentials in the URL work too.
    const inUrl = privateServer.url.replace("http://", "http://ci:s3cret@");
    expect(
      await createAptRepositorySource({ url: inUrl, distribution: "stable" }).listReleases(signal),
    ).toHaveLength(4);

    const wrong = await failure(() =>
      createAptRepositorySource({
        url: privateServer.url,
        distribution: "stable",
        username: "ci",
        password: "wrong",
      }).listReleases(signal),
    );
    expect(wrong.code).toBe("SOURCE_AUTH_FAILED");
    expect(wrong.message).toContain(`${privateServer.url}dists/stable/InRelease`);
    expect(wrong.message).not.toContain("wrong");

    const none = await failure(() =>
      createAptRepositorySource({ url: privateServer.url, distribution: "stable" }).listReleases(signal),
    );
    expect(none.code).toBe("SOURCE_AUTH_FAILED");
  });

  it("says what is missing: a distribution, a component", async () => {
    const distribution = await failure(() =>
      createAptRepositorySource({ url: server.url, distribution: "bookworm" }).listReleases(signal),
    );
    expect(distribution.code).toBe("SOURCE_NOT_FOUND");
    expect(distribution.message).toBe(
      `No APT distribution "bookworm" at ${server.url}: neither ${server.url}dists/bookworm/InRelease nor ${server.url}dists/bookworm/Release exists`,
    );

    const component = await failure(() =>
      createAptRepositorySource({
        url: server.url,
        distribution: "stable",
        components: ["non-free"],
      }).listReleases(signal),
    );
    expect(component.code).toBe("SOURCE_NOT_FOUND");
    expect(component.message).toContain("has no component non-free (it has main, contrib)");
  });

  it("names the URL of an answer that is not an APT index", async () => {
    const garbage = startStaticServer(repository.root, {
      statusFor: (path) => (path.endsWith("/InRelease") ? 500 : undefined),
    });
    const broken = await garbage;
    try {
      const error = await failure(() =>
        createAptRepositorySource({ url: broken.url, distribution: "stable" }).listReleases(signal),
      );
      expect(error.code).toBe("SOURCE_UNREACHABLE");
      expect(error.message).toBe(
        `InRelease (${broken.url}dists/stable/InRelease): the repository answered HTTP 500 Internal Server Error`,
      );
    } finally {
      await broken.stop();
    }

    const release = `${repository.root}/dists/stable/InRelease`;
    const original = readFileSync(release);
    writeFileSync(release, "<html><body>Welcome to nginx!</body></html>\n");
    try {
      const error = await failure(() =>
        createAptRepositorySource({ url: server.url, distribution: "stable" }).listReleases(signal),
      );
      expect(error.code).toBe("SOURCE_INVALID");
      expect(error.message).toContain(
        `InRelease (${server.url}dists/stable/InRelease) is not a valid APT index`,
      );
    } finally {
      writeFileSync(release, original);
    }
  });

  it("cannot reach a server that is gone", async () => {
    const gone = await startStaticServer(repository.root);
    await gone.stop();
    const error = await failure(() =>
      createAptRepositorySource({ url: gone.url, distribution: "stable" }).listReleases(signal),
    );
    expect(error.code).toBe("SOURCE_UNREACHABLE");
    expect(error.message).toContain(`${gone.url}dists/stable/InRelease`);
  });
});
