// The YUM repository source against real repositories: rpms built here with rpmbuild, indexed
// by createrepo_c (the default sha256 + gzip, and sha512 + xz), served by a static server on
// 127.0.0.1, with and without basic auth.

import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildTestRpmFiles,
  buildYumRepository,
  type TestYumRepository,
  tamper,
  yumRepositoryTools,
} from "../../../test/source-repositories.ts";
import { type StaticServer, startStaticServer } from "../../../test/static-server.ts";
import { makeTempDir, removeTempDirs } from "../../../test/temp-dirs.ts";
import { guardedFetch } from "../../imports/http-fetch.ts";
import { ImportError, type SourceRelease } from "../../imports/source.ts";
import { createYumRepositorySource as createSource, releaseVersionOfRpm } from "./import.ts";

// The test repositories are on 127.0.0.1: allowed here as WEBHOOK_ALLOW_PRIVATE allows it.
const createYumRepositorySource = (
  input: Parameters<typeof createSource>[0],
  deps: Parameters<typeof createSource>[1] = {},
) => createSource(input, { fetch: guardedFetch({ allowPrivate: true }), ...deps });

const hasTools = requireTools(yumRepositoryTools);

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

const expectedReleases = [
  { version: "0.9-1", files: ["packyard-beta-0.9-1.x86_64.rpm"] },
  { version: "1.0-1", files: ["packyard-weird-1.0-1.noarch.rpm"] },
  { version: "1.2.3-4", files: ["packyard-alpha-1.2.3-4.noarch.rpm"] },
];

describe("releaseVersionOfRpm", () => {
  it("is version-release without the epoch, in the characters a release version allows", () => {
    expect(releaseVersionOfRpm({ version: "1.2.3", release: "4.el9" })).toBe("1.2.3-4.el9");
    expect(releaseVersionOfRpm({ version: "1.0^git5", release: "1" })).toBe("1.0_git5-1");
    expect(releaseVersionOfRpm({ version: "2", release: "" })).toBe("2");
  });
});

describe.skipIf(!hasTools)("createYumRepositorySource against createrepo_c", () => {
  let rpms: ReturnType<typeof buildTestRpmFiles>;
  let plain: TestYumRepository;
  let strong: TestYumRepository;
  let server: StaticServer;
  let privateServer: StaticServer;

  beforeAll(async () => {
    rpms = buildTestRpmFiles();
    const dir = makeTempDir("packyard-yum-import-");
    plain = buildYumRepository(dir, "plain", rpms.files);
    strong = buildYumRepository(dir, "strong", rpms.files, [
      "--checksum",
      "sha512",
      "--general-compress-type",
      "xz",
    ]);
    server = await startStaticServer(dir);
    privateServer = await startStaticServer(dir, { basicAuth: { username: "ci", password: "s3cret" } });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await privateServer?.stop();
    rpms?.cleanup();
    removeTempDirs();
  });

  it("lists one release per version-release, each package's exact bytes (sha256, gzip)", async () => {
    const source = createYumRepositorySource({ url: `${server.url}plain` });
    const releases = await source.listReleases(signal);
    expect(summary(releases)).toEqual(expectedReleases);
    for (const file of releases.flatMap((release) => release.files)) {
      const expected = readFileSync(plain.packages.get(file.filename)!);
      expect(file.size).toBe(expected.length);
      expect((await readAll(await file.open(signal))).equals(expected)).toBe(true);
    }
    expect(
      server.requests.some((path) => /^\/plain\/repodata\/[0-9a-f]{64}-primary\.xml\.gz$/.test(path)),
    ).toBe(true);
  });

  it("reads sha512 checksums and xz metadata", async () => {
    const source = createYumRepositorySource({ url: `${server.url}strong/` });
    const releases = await source.listReleases(signal);
    expect(summary(releases)).toEqual(expectedReleases);
    expect(
      server.requests.some((path) => /^\/strong\/repodata\/[0-9a-f]{128}-primary\.xml\.xz$/.test(path)),
    ).toBe(true);
    const file = releases[2]!.files[0]!;
    expect(
      (await readAll(await file.open(signal))).equals(readFileSync(strong.packages.get(file.filename)!)),
    ).toBe(true);
  });

  it("puts every package into the release the operator names", async () => {
    const source = createYumRepositorySource({ url: `${server.url}plain`, release: "imported" });
    expect(summary(await source.listReleases(signal))).toEqual([
      {
        version: "imported",
        files: [
          "packyard-alpha-1.2.3-4.noarch.rpm",
          "packyard-beta-0.9-1.x86_64.rpm",
          "packyard-weird-1.0-1.noarch.rpm",
        ],
      },
    ]);
  });

  it("refuses a package whose bytes do not match primary.xml, naming it", async () => {
    for (const [name, repository, algorithm] of [
      ["plain", plain, "sha256"],
      ["strong", strong, "sha512"],
    ] as const) {
      const releases = await createYumRepositorySource({ url: `${server.url}${name}` }).listReleases(signal);
      const file = releases
        .flatMap((release) => release.files)
        .find((f) => f.filename.startsWith("packyard-beta-"))!;
      const path = repository.packages.get(file.filename)!;
      const original = tamper(path);
      try {
        const error = await failure(async () => readAll(await file.open(signal)));
        expect(error.code).toBe("CHECKSUM_MISMATCH");
        expect(error.subject).toBe("packyard-beta-0.9-1.x86_64.rpm");
        const expected = createHash(algorithm).update(original).digest("hex");
        const actual = createHash(algorithm).update(readFileSync(path)).digest("hex");
        expect(error.message).toBe(
          `packyard-beta-0.9-1.x86_64.rpm: expected ${algorithm} ${expected}; the bytes do not match the checksum the index gives`,
        );
        expect(error.message).not.toContain(actual);
      } finally {
        writeFileSync(path, original);
      }
    }
  });

  it("refuses primary metadata that does not match repomd.xml", async () => {
    const repodata = `${plain.root}/repodata`;
    const primary = readFileSync(`${repodata}/repomd.xml`, "utf8").match(
      /href="repodata\/([^"]+-primary\.xml\.gz)"/,
    )![1]!;
    const original = tamper(`${repodata}/${primary}`);
    try {
      const error = await failure(() =>
        createYumRepositorySource({ url: `${server.url}plain` }).listReleases(signal),
      );
      expect(error.code).toBe("CHECKSUM_MISMATCH");
      expect(error.subject).toBe(`${server.url}plain/repodata/${primary}`);
    } finally {
      writeFileSync(`${repodata}/${primary}`, original);
    }
  });

  it("uses basic auth, and says so when the credentials are wrong", async () => {
    const releases = await createYumRepositorySource({
      url: `${privateServer.url}plain`,
      username: "ci",
      password: "s3cret",
    }).listReleases(signal);
    expect(summary(releases)).toEqual(expectedReleases);
    const file = releases[0]!.files[0]!;
    expect((await readAll(await file.open(signal))).length).toBe(file.size);

    const wrong = await failure(() =>
      createYumRepositorySource({
        url: `${privateServer.url}plain`,
        username: "ci",
        password: "nope",
      }).listReleases(signal),
    );
    expect(wrong.code).toBe("SOURCE_AUTH_FAILED");
    expect(wrong.message).toContain(`${privateServer.url}plain/repodata/repomd.xml`);
  });

  it("says when there is no repository, or no YUM metadata, at the URL", async () => {
    const missing = await failure(() =>
      createYumRepositorySource({ url: `${server.url}nothing` }).listReleases(signal),
    );
    expect(missing.code).toBe("SOURCE_NOT_FOUND");
    expect(missing.message).toBe(
      `No YUM repository at ${server.url}nothing/: ${server.url}nothing/repodata/repomd.xml does not exist`,
    );

    const repomd = `${plain.root}/repodata/repomd.xml`;
    const original = readFileSync(repomd);
    writeFileSync(repomd, "<html><body>Welcome</body></html>");
    try {
      const error = await failure(() =>
        createYumRepositorySource({ url: `${server.url}plain` }).listReleases(signal),
      );
      expect(error.code).toBe("SOURCE_INVALID");
      expect(error.message).toBe(
        `repomd.xml (${server.url}plain/repodata/repomd.xml) is not valid YUM metadata: the root element is <html>, not <repomd>`,
      );
      writeFileSync(repomd, "this is not xml at all");
      const notXml = await failure(() =>
        createYumRepositorySource({ url: `${server.url}plain` }).listReleases(signal),
      );
      expect(notXml.code).toBe("SOURCE_INVALID");
      expect(notXml.message).toContain(`${server.url}plain/repodata/repomd.xml`);
    } finally {
      writeFileSync(repomd, original);
    }
  });
});
