// The repository importers against hostile indexes, served on 127.0.0.1 with their true
// checksums (test/hostile-repository.ts): an index is read as it streams, each identical entry
// once, and one that lists more packages, or expands to more bytes, than an import takes fails
// with SOURCE_TOO_LARGE, naming the index, without being read to its end.
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, describe, expect, it } from "vitest";
import {
  primaryPackage,
  repeated,
  stanza,
  writeHostileAptSuite,
  writeHostileYumRepository,
} from "../../test/hostile-repository.ts";
import { type StaticServer, startStaticServer } from "../../test/static-server.ts";
import { makeTempDir, removeTempDirs } from "../../test/temp-dirs.ts";
import { MAX_IMPORT_PACKAGES, MAX_INDEX_BYTES } from "./repository-releases.ts";
import { ImportError, type ImportSource } from "./source.ts";
import { createImportSource } from "./sources.ts";

const hasXz = requireTools(["xz"]);
const servers: StaticServer[] = [];
const signal = new AbortController().signal;

afterAll(async () => {
  for (const server of servers) await server.stop();
  removeTempDirs();
});

async function serve(root: string): Promise<StaticServer> {
  const server = await startStaticServer(root);
  servers.push(server);
  return server;
}

// The repositories are on 127.0.0.1: allowed as WEBHOOK_ALLOW_PRIVATE allows it.
const sourceDeps = { githubApiUrl: "https://api.github.invalid", allowPrivate: true };
const noCredentials = { username: undefined, password: undefined, release: undefined };

function aptSource(server: StaticServer): ImportSource {
  return createImportSource(
    { kind: "apt-repository", url: server.url, distribution: "stable", ...noCredentials },
    sourceDeps,
  );
}

async function failure(source: ImportSource): Promise<ImportError> {
  const error = await source.listReleases(signal).then(
    (releases) => new Error(`listed ${releases.length} releases`),
    (e: unknown) => e,
  );
  if (error instanceof ImportError) return error;
  throw error;
}

describe("importing from an APT repository with a hostile Packages index", () => {
  it("lists 200,000 identical stanzas as the one package they are", async () => {
    const root = makeTempDir("packyard-hostile-apt-");
    await writeHostileAptSuite(
      root,
      repeated(200_000, () => stanza("hello", "1.0-1")),
      "gzip",
    );
    const releases = await aptSource(await serve(root)).listReleases(signal);
    expect(releases.map((r) => [r.version, r.files.map((f) => f.filename)])).toEqual([
      ["1.0-1", ["hello_1.0-1_amd64.deb"]],
    ]);
  });

  it.runIf(hasXz)("refuses a Packages.xz listing more packages than an import takes", async () => {
    const root = makeTempDir("packyard-hostile-apt-");
    await writeHostileAptSuite(
      root,
      repeated(MAX_IMPORT_PACKAGES + 1_000, (i) => stanza("hello", `1.0.${i}-1`)),
      "xz",
    );
    const server = await serve(root);
    const error = await failure(aptSource(server));
    const index = `${server.url}dists/stable/main/binary-amd64/Packages.xz`;
    expect(error).toMatchObject({ code: "SOURCE_TOO_LARGE", subject: index });
    expect(error.message).toBe(
      `main/binary-amd64/Packages.xz (${index}) lists more than 50,000 packages, more than one import takes; import fewer components, or name a smaller repository`,
    );
  });

  it("stops reading a Packages.gz that expands to more than an import reads", async () => {
    const root = makeTempDir("packyard-hostile-apt-");
    // Identical stanzas, each with a long description, to just past the limit.
    const one = stanza("hello", "1.0-1", 64 * 1024);
    await writeHostileAptSuite(
      root,
      repeated(Math.ceil(MAX_INDEX_BYTES / one.length) + 16, () => one),
      "gzip",
    );
    const server = await serve(root);
    const error = await failure(aptSource(server));
    const index = `${server.url}dists/stable/main/binary-amd64/Packages.gz`;
    expect(error).toMatchObject({ code: "SOURCE_TOO_LARGE", subject: index });
    expect(error.message).toBe(
      `main/binary-amd64/Packages.gz (${index}) is larger than 128 MB once decompressed, more than an import reads`,
    );
  });
});

describe("importing from a YUM repository with a hostile primary.xml", () => {
  it("refuses a primary.xml listing more packages than an import takes", async () => {
    const root = makeTempDir("packyard-hostile-yum-");
    await writeHostileYumRepository(
      root,
      repeated(2 * MAX_IMPORT_PACKAGES, (i) => primaryPackage("hello", `1.0.${i}`)),
    );
    const server = await serve(root);
    const error = await failure(
      createImportSource({ kind: "yum-repository", url: server.url, ...noCredentials }, sourceDeps),
    );
    const index = `${server.url}repodata/primary.xml.gz`;
    expect(error).toMatchObject({ code: "SOURCE_TOO_LARGE", subject: index });
    expect(error.message).toMatch(/^primary metadata \(.*\) lists more than 50,000 packages/);
  });

  it("refuses a primary.xml whose repomd.xml says it is too large, without fetching it", async () => {
    const root = makeTempDir("packyard-hostile-yum-");
    await writeHostileYumRepository(root, [primaryPackage("hello", "1.0")], {
      openSize: MAX_INDEX_BYTES + 1,
    });
    const server = await serve(root);
    const error = await failure(
      createImportSource({ kind: "yum-repository", url: server.url, ...noCredentials }, sourceDeps),
    );
    expect(error).toMatchObject({
      code: "SOURCE_TOO_LARGE",
      subject: `${server.url}repodata/primary.xml.gz`,
    });
    expect(server.requests).toEqual(["/repodata/repomd.xml"]);
  });

  it("lists identical <package> entries as one package, however many more than the limit", async () => {
    const root = makeTempDir("packyard-hostile-yum-");
    await writeHostileYumRepository(
      root,
      repeated(MAX_IMPORT_PACKAGES + 1_000, () => primaryPackage("hello", "1.0")),
    );
    const server = await serve(root);
    const releases = await createImportSource(
      { kind: "yum-repository", url: server.url, ...noCredentials },
      sourceDeps,
    ).listReleases(signal);
    expect(releases.map((r) => [r.version, r.files.map((f) => f.filename)])).toEqual([
      ["1.0-1", ["hello-1.0-1.noarch.rpm"]],
    ]);
  });
});
