// The importers cannot be turned against the server (issue 37): a hostile HTTP server on
// 127.0.0.1 holds a secret; imports that point at it — directly in any spelling of the address,
// through a redirect from a "public" repository, or through a YUM xml:base — fail with
// SOURCE_FORBIDDEN, the secret server sees no request, and no error carries its answer. A
// sender that trickles bytes or goes silent is cut off. Here everything is on loopback, so the
// "public" repository is a name the test maps to 127.0.0.1 (the lookup hook); every other name
// and every IP literal goes through the real guard.
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, LookupFunction } from "node:net";
import { gzipSync } from "node:zlib";
import { type ImportSourceInput, importSourceInput } from "@packyard/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookLookup } from "../webhooks/address-guard.ts";
import { guardedFetch } from "./http-fetch.ts";
import { ImportError } from "./source.ts";
import { createImportSource } from "./sources.ts";

/** A source as the API takes it (its defaults filled in). */
const input = (source: Record<string, unknown>): ImportSourceInput => importSourceInput.parse(source);

const SECRET = "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

interface TestServer {
  port: number;
  requests: Array<{ url: string; authorization: string | undefined }>;
  close(): Promise<void>;
}

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  const requests: TestServer["requests"] = [];
  const server = createServer((req, res) => {
    requests.push({ url: req.url ?? "", authorization: req.headers.authorization });
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** "repo.example" and "other.example" are public names here that happen to live on loopback. */
function testLookup(names: Record<string, string>): LookupFunction {
  const guard = webhookLookup();
  return (hostname, options, callback) => {
    const address = names[hostname];
    if (address === undefined) return guard(hostname, options, callback);
    if (options.all) callback(null, [{ address, family: 4 }]);
    else callback(null, address, 4);
  };
}

async function failure(promise: Promise<unknown>): Promise<ImportError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ImportError);
  return error as ImportError;
}

const signal = () => AbortSignal.timeout(20_000);
const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

let secret: TestServer;
beforeAll(async () => {
  secret = await serve((_req, res) => res.end(`${SECRET}\n`));
});
afterAll(() => secret.close());

describe("imports without WEBHOOK_ALLOW_PRIVATE", () => {
  const deps = { githubApiUrl: "https://api.github.com", allowPrivate: false };

  it.each([
    "http://127.0.0.1:PORT/",
    "http://2130706433:PORT/",
    "http://0x7f.1:PORT/",
    "http://127.1:PORT/",
    "http://[::ffff:127.0.0.1]:PORT/",
    "http://[::1]:PORT/",
    "http://localhost:PORT/",
    "http://169.254.169.254/latest/meta-data/",
  ])("refuses an APT or YUM repository at %s", async (template) => {
    const url = template.replace("PORT", String(secret.port));
    for (const source of [
      input({ kind: "apt-repository", url, distribution: "stable" }),
      input({ kind: "yum-repository", url }),
    ]) {
      const error = await failure(createImportSource(source, deps).listReleases(signal()));
      expect(error.code).toBe("SOURCE_FORBIDDEN");
      expect(error.message).toMatch(/loopback, link-local or private address/);
      expect(error.message).not.toContain("AWS_SECRET");
    }
    expect(secret.requests).toEqual([]);
  });

  it("refuses a GitHub API on a private address", async () => {
    const error = await failure(
      createImportSource(
        input({
          kind: "github-releases",
          repository: "acme/tool",
          includePrereleases: true,
          includeDrafts: false,
        }),
        { ...deps, githubApiUrl: `http://127.0.0.1:${secret.port}` },
      ).listReleases(signal()),
    );
    expect(error.code).toBe("SOURCE_FORBIDDEN");
    expect(secret.requests).toEqual([]);
  });
});

describe("a public repository that leads to a private address", () => {
  let repo: TestServer;
  let other: TestServer;
  let fetch: typeof globalThis.fetch;
  const secretTargets = () => [
    `http://127.0.0.1:${secret.port}/InRelease`,
    `http://localhost:${secret.port}/InRelease`,
    `http://[::ffff:7f00:1]:${secret.port}/InRelease`,
    `http://2130706433:${secret.port}/InRelease`,
  ];
  let primaryXml: Buffer;
  let repomdXml: string;

  beforeAll(async () => {
    const pkg = Buffer.from("not really an rpm");
    primaryXml = gzipSync(`<?xml version="1.0" encoding="UTF-8"?>
<metadata xmlns="http://linux.duke.edu/metadata/common" packages="1">
<package type="rpm">
  <name>tool</name>
  <arch>noarch</arch>
  <version epoch="0" ver="1.0" rel="1"/>
  <checksum type="sha256" pkgid="YES">${sha256(pkg)}</checksum>
  <size package="${pkg.length}"/>
  <location xml:base="http://127.0.0.1:${secret.port}/" href="tool-1.0-1.noarch.rpm"/>
</package>
</metadata>
`);
    const repomd = (base: string) => `<?xml version="1.0" encoding="UTF-8"?>
<repomd xmlns="http://linux.duke.edu/metadata/repo">
  <data type="primary">
    <checksum type="sha256">${sha256(primaryXml)}</checksum>
    <location${base} href="repodata/primary.xml.gz"/>
    <size>${primaryXml.length}</size>
  </data>
</repomd>
`;
    repomdXml = repomd("");
    repo = await serve((req, res) => {
      const url = req.url ?? "";
      // /<n>/dists/stable/InRelease → a second hop on the same host → the n-th private target.
      const first = /^\/(\d+)\/dists\/stable\/InRelease$/.exec(url);
      const hop = /^\/hop\/(\d+)$/.exec(url);
      if (first) res.writeHead(302, { location: `http://repo.example:${repo.port}/hop/${first[1]}` }).end();
      else if (hop) res.writeHead(307, { location: secretTargets()[Number(hop[1])] }).end();
      else if (url === "/base/repodata/repomd.xml")
        res.end(repomd(` xml:base="http://127.0.0.1:${secret.port}/"`));
      else if (url === "/yum/repodata/repomd.xml") res.end(repomdXml);
      else if (url === "/yum/repodata/primary.xml.gz") res.end(primaryXml);
      else if (url === "/auth/dists/stable/InRelease")
        res.writeHead(302, { location: `http://other.example:${other.port}/InRelease` }).end();
      else res.writeHead(404).end();
    });
    other = await serve((_req, res) => res.writeHead(404).end());
    fetch = guardedFetch({
      allowPrivate: false,
      lookup: testLookup({ "repo.example": "127.0.0.1", "other.example": "127.0.0.1" }),
    });
  });
  afterAll(async () => {
    await repo.close();
    await other.close();
  });

  it("checks every redirect hop: the private one is refused before connecting", async () => {
    for (const [n, target] of secretTargets().entries()) {
      const error = await failure(
        createImportSource(
          input({
            kind: "apt-repository",
            url: `http://repo.example:${repo.port}/${n}/`,
            distribution: "stable",
          }),
          { githubApiUrl: "https://api.github.com", fetch },
        ).listReleases(signal()),
      );
      expect(error.code).toBe("SOURCE_FORBIDDEN");
      expect(error.subject).toBe(new URL(target).href);
      expect(error.message).not.toContain("AWS_SECRET");
    }
    // Both public hops were taken each time; the private one never.
    expect(repo.requests.filter((r) => r.url.includes("hop")).length).toBe(secretTargets().length);
    expect(secret.requests).toEqual([]);
  });

  it("refuses a YUM xml:base that points at a private address, for the index and for a package", async () => {
    const deps = { githubApiUrl: "https://api.github.com", fetch };
    const index = await failure(
      createImportSource(
        input({ kind: "yum-repository", url: `http://repo.example:${repo.port}/base/` }),
        deps,
      ).listReleases(signal()),
    );
    expect(index.code).toBe("SOURCE_FORBIDDEN");
    expect(index.subject).toBe(`http://127.0.0.1:${secret.port}/repodata/primary.xml.gz`);

    const releases = await createImportSource(
      input({ kind: "yum-repository", url: `http://repo.example:${repo.port}/yum/` }),
      deps,
    ).listReleases(signal());
    const file = releases[0]!.files[0]!;
    const opened = await failure(file.open(signal()));
    expect(opened.code).toBe("SOURCE_FORBIDDEN");
    expect(secret.requests).toEqual([]);
  });

  it("sends the repository's credentials to its own origin only, not where it redirects", async () => {
    const error = await failure(
      createImportSource(
        input({
          kind: "apt-repository",
          url: `http://repo.example:${repo.port}/auth/`,
          distribution: "stable",
          username: "mirror",
          password: "s3cret",
        }),
        { githubApiUrl: "https://api.github.com", fetch },
      ).listReleases(signal()),
    );
    expect(error.code).toBe("SOURCE_NOT_FOUND");
    expect(repo.requests.find((r) => r.url === "/auth/dists/stable/InRelease")?.authorization).toMatch(
      /^Basic /,
    );
    expect(other.requests).toEqual([{ url: "/InRelease", authorization: undefined }]);
  });
});

describe("import deadlines", () => {
  let slow: TestServer;
  beforeAll(async () => {
    slow = await serve((req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      if (req.url?.startsWith("/trickle/")) {
        // Two bytes at a time, for ever.
        const timer = setInterval(() => res.write("--"), 20);
        res.on("close", () => clearInterval(timer));
      } else res.write("-"); // then nothing, the connection open
    });
  });
  afterAll(() => slow.close());

  it.each([
    ["trickle", { totalTimeoutMs: 500 }, /took longer than 500 ms/],
    ["silent", { idleTimeoutMs: 300 }, /sent nothing for 300 ms/],
  ] as const)("cuts off a %s sender with SOURCE_UNREACHABLE", async (path, timeouts, message) => {
    const error = await failure(
      createImportSource(
        input({
          kind: "apt-repository",
          url: `http://127.0.0.1:${slow.port}/${path}/`,
          distribution: "stable",
        }),
        { githubApiUrl: "https://api.github.com", fetch: guardedFetch({ allowPrivate: true, ...timeouts }) },
      ).listReleases(signal()),
    );
    expect(error.code).toBe("SOURCE_UNREACHABLE");
    expect(error.message).toMatch(message);
  });
});
