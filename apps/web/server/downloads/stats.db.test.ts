// Download statistics and badges over a real socket (decisions 033 and 083): real apt-get and
// dnf installs count as installs, curl's and a browser's fetches of release files as downloads,
// and the indexes, keys and signatures they fetch as neither; each lands in its day, client kind
// and distribution, with the day's distinct machines; a burst of 200 downloads is counted
// exactly (statistics, the file's counter and the owner's month); the dashboard's numbers are
// the API's; the query is validated; the badges are SVG an XML parser reads, with the latest
// version that isn't yanked and this month's installs and downloads. SQLite and PostgreSQL.
import { readFileSync } from "node:fs";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { buildTestRpms, type TestRpms } from "@packyard/formats/rpm/testing/build-test-rpms.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import sax from "sax";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { downloadsOverview } from "../../app/lib/downloads.server.ts";
import { aptRoot, runCommand } from "../../test/apt-client.ts";
import { dnfRoot } from "../../test/dnf-client.ts";
import { databaseKind } from "../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../test/live-server.ts";
import { removeTempDirs } from "../../test/temp-dirs.ts";
import { flushDownloadCounts } from "../billing/usage.ts";
import { openDatabase } from "../platform/db/database.ts";
import { DownloadBatch, writeDownloadBatch } from "./counts.ts";

const hasTools = requireTools(["curl", "apt-get", "dpkg", "gpgv", "rpmbuild", "rpm", "dnf", "gpg"]);

const DAY_MS = 86_400_000;
const CHROME =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const BINARY = "gadget-linux-amd64";
const binary = "#!/bin/sh\necho gadget\n".repeat(50);
const TARBALL = "gadget-1.1.0.tar.gz";
const tarball = "not really a tarball, but bytes all the same\n";
const SIGNATURE = `${BINARY}.asc`;
const signature = "-----BEGIN PGP SIGNATURE-----\n\nnot really a signature\n-----END PGP SIGNATURE-----\n";

// Day one is yesterday (apt accepts a Release dated in the past); day two today.
let offset = -DAY_MS;
const clock = () => new Date(Date.now() + offset);
const today = () => clock().toISOString().slice(0, 10);

let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;
let rpms: TestRpms;
let projectId: string;
let day1: string;
let day2: string;
let debSize: number;
let rpmSize: number;

type Stats = {
  total: { installs: number; downloads: number; bytes: number; machines?: number };
  rows: {
    key: string;
    version?: string;
    installs: number;
    downloads: number;
    bytes: number;
    machines?: number;
  }[];
};
async function stats(query: string): Promise<Stats> {
  const res = await pub.api(`/api/v1/projects/gadget/stats?${query}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()).stats;
}
/** Each row's installs and downloads: [installs, downloads]. */
const counts = (s: Stats) => Object.fromEntries(s.rows.map((r) => [r.key, [r.installs, r.downloads]]));

async function put(version: string, filename: string, body: BodyInit) {
  const res = await pub.api(`/api/v1/projects/gadget/releases/${version}/files/${filename}`, {
    method: "PUT",
    body,
  });
  expect(res.status, await res.clone().text()).toBe(201);
}

/** Parses an SVG with a strict XML parser: the visible texts and the root's attributes. */
function parseSvg(svg: string) {
  const parser = sax.parser(true);
  const texts: string[] = [];
  let root: Record<string, string> | undefined;
  let inText = false;
  parser.onopentag = (tag) => {
    const attributes = tag.attributes as Record<string, string>;
    root ??= attributes;
    inText = tag.name === "text" && attributes["aria-hidden"] !== "true";
    if (inText) texts.push("");
  };
  parser.onclosetag = () => {
    inText = false;
  };
  parser.ontext = (text) => {
    if (inText) texts[texts.length - 1] += text;
  };
  parser.onerror = (error) => {
    throw error;
  };
  parser.write(svg).close();
  return { root: root!, texts };
}

beforeAll(async () => {
  if (!hasTools) return;
  rpms = buildTestRpms();
  server = await startLiveServer({}, { clock });
  pub = await publisher(server, "statsman");
  const created = await pub.api("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug: "gadget", name: "Gadget" }),
  });
  expect(created.status).toBe(201);
  projectId = (await created.json()).project.id;
  const deb = buildTestDeb({
    control: `Package: gadget
Version: 1.0.0
Architecture: amd64
Maintainer: Packyard Tests <tests@example.com>
Description: gadget for the statistics test
 It installs one script.
`,
    dataFiles: [{ name: "./usr/bin/gadget", data: "#!/bin/sh\necho gadget\n" }],
  });
  debSize = deb.byteLength;
  const rpm = readFileSync(rpms.alpha);
  await put("1.0.0", BINARY, binary);
  await put("1.0.0", SIGNATURE, signature);
  await put("1.0.0", "gadget_1.0.0_amd64.deb", Buffer.from(deb));
  await put("1.0.0", rpms.alpha.split("/").pop()!, rpm);
  rpmSize = Number(
    (
      await server.services.database.db
        .selectFrom("release_file")
        .select("size")
        .where("filename", "=", rpms.alpha.split("/").pop()!)
        .executeTakeFirstOrThrow()
    ).size,
  );
  await put("1.1.0", TARBALL, tarball);
}, 120_000);
afterAll(async () => {
  await server?.close();
  rpms?.cleanup();
  removeTempDirs();
});

describe.runIf(hasTools)(`download statistics (${databaseKind})`, () => {
  it("counts apt-get's and dnf's installs, curl's and a browser's downloads and the day's machines; a burst of 200 on day two, exactly", async () => {
    day1 = today();
    const release = `${server.url}/dl/statsman/gadget/releases/1.0.0`;
    const url = `${release}/${BINARY}`;
    const curl = async (...args: string[]) => {
      const result = await runCommand(["curl", "-fsS", "-o", "/dev/null", ...args], {});
      expect(result.status, result.stderr).toBe(0);
    };
    await curl(url);
    await curl(url);
    // A range that stops short of the last byte: bytes, no download.
    await curl("-r", "0-4", url);
    // Signatures and checksums: the release's own list and its signature, an uploaded
    // signature file — fetched to check a download, neither installs nor downloads.
    await curl(`${release}/SHA256SUMS`);
    await curl(`${release}/SHA256SUMS.asc`);
    await curl(`${release}/${SIGNATURE}`);
    const browser = await fetch(url, { headers: { "user-agent": CHROME } });
    expect(await browser.text()).toBe(binary);

    // apt-get: the key, Release, InRelease and Packages (neither), then the .deb (an install).
    const apt = aptRoot();
    const keyring = `${apt.root}/gadget.gpg`;
    const { writeFileSync } = await import("node:fs");
    writeFileSync(
      keyring,
      Buffer.from(await (await fetch(`${server.url}/dl/statsman/gadget/keyring.gpg`)).arrayBuffer()),
    );
    writeFileSync(
      `${apt.root}/etc/apt/sources.list`,
      `deb [signed-by=${keyring}] ${server.url}/dl/statsman/gadget/deb stable main\n`,
    );
    await apt.update();
    await apt.install("gadget");
    expect(readFileSync(`${apt.root}/usr/bin/gadget`, "utf8")).toContain("echo gadget");

    // dnf: repomd.xml, its signature and the repodata (neither), then the .rpm (an install).
    const dnfClient = dnfRoot();
    const dnf = await dnfClient.dnf(`${server.url}/dl/statsman/gadget/rpm`, ["install", "packyard-alpha"]);
    expect(dnf.status, `${dnf.stdout}\n${dnf.stderr}`).toBe(0);
    const installed = await runCommand(["rpm", "--root", dnfClient.root, "-q", "packyard-alpha"], {});
    expect(installed.stdout).toMatch(/^packyard-alpha-/);

    // Day two: 200 downloads at once.
    offset = 0;
    day2 = today();
    const burst = await Promise.all(
      Array.from({ length: 200 }, () =>
        fetch(`${server.url}/dl/statsman/gadget/releases/latest/${TARBALL}`).then((r) => r.text()),
      ),
    );
    expect(burst.every((body) => body === tarball)).toBe(true);

    const byClient = await stats(`from=${day1}&to=${day2}&by=client`);
    expect(counts(byClient)).toEqual({
      other: [0, 200],
      curl: [0, 2],
      browser: [0, 1],
      apt: [1, 0],
      dnf: [1, 0],
    });
    const row = (key: string) => byClient.rows.find((r) => r.key === key)!;
    expect(row("curl").bytes).toBe(2 * binary.length + 5 + signature.length);
    expect(row("apt").bytes).toBe(debSize);
    expect(row("dnf").bytes).toBe(rpmSize);
    // One machine per client here (one address, one User-Agent each), on its day.
    for (const key of ["other", "curl", "browser", "apt", "dnf"]) expect(row(key).machines, key).toBe(1);
    expect(byClient.total).toEqual({
      installs: 2,
      downloads: 203,
      bytes: 200 * tarball.length + 3 * binary.length + 5 + signature.length + debSize + rpmSize,
      machines: 5,
    });

    const byDay = await stats(`from=${day1}&to=${day2}`);
    expect(byDay.rows.map((r) => [r.key, r.installs, r.downloads, r.machines])).toEqual([
      [day1, 2, 3, 4],
      [day2, 0, 200, 1],
    ]);
    expect(counts(await stats(`from=${day1}&to=${day2}&by=version`))).toEqual({
      "1.1.0": [0, 200],
      "1.0.0": [2, 3],
    });
    const byFile = await stats(`from=${day1}&to=${day2}&by=file`);
    expect(byFile.rows.map((r) => [r.key, r.version, r.installs, r.downloads])).toEqual([
      [TARBALL, "1.1.0", 0, 200],
      [BINARY, "1.0.0", 0, 3],
      [expect.stringMatching(/\.rpm$/), "1.0.0", 1, 0],
      ["gadget_1.0.0_amd64.deb", "1.0.0", 1, 0],
      // The signature's bytes are counted, the fetch is not.
      [SIGNATURE, "1.0.0", 0, 0],
    ]);
    expect(byFile.rows.at(-1)!.bytes).toBe(signature.length);
    // apt's installs by the suite they were published in; dnf's by the distribution it names.
    const byDistribution = counts(await stats(`from=${day1}&to=${day2}&by=distribution`));
    expect(byDistribution.stable).toEqual([1, 0]);
    expect(byDistribution[""]).toEqual([0, 203]);
    expect(Object.keys(byDistribution)).toHaveLength(3);
    const dnfDistribution = Object.keys(byDistribution).find((k) => k !== "" && k !== "stable")!;
    expect(dnfDistribution).toMatch(/\S/);
    expect(byDistribution[dnfDistribution]).toEqual([1, 0]);
    // Only day one; only a release's files (and no machines: they are the project's).
    expect((await stats(`from=${day1}&to=${day1}&by=client`)).total).toMatchObject({
      installs: 2,
      downloads: 3,
      machines: 4,
    });
    const ofRelease = await stats(`from=${day1}&to=${day2}&by=file&version=1.1.0`);
    expect(counts(ofRelease)).toEqual({ [TARBALL]: [0, 200] });
    expect(ofRelease.total.machines).toBeUndefined();

    // The files' own counters and the owner's month count installs and downloads, not signatures.
    const files = (await (await pub.api("/api/v1/projects/gadget/releases/1.0.0/files")).json()).files as {
      filename: string;
      downloads: number;
    }[];
    const downloadsOf = (name: string) => files.find((f) => f.filename === name)!.downloads;
    expect([downloadsOf(BINARY), downloadsOf("gadget_1.0.0_amd64.deb"), downloadsOf(SIGNATURE)]).toEqual([
      3, 1, 0,
    ]);
    const tarballs = (await (await pub.api("/api/v1/projects/gadget/releases/1.1.0/files")).json()).files;
    expect(tarballs.find((f: { filename: string }) => f.filename === TARBALL).downloads).toBe(200);
    await flushDownloadCounts(server.services.database.db);
    const month = await server.services.database.db
      .selectFrom("download_month")
      .select(["downloads", "month"])
      .where("owner_id", "=", pub.userId)
      .execute();
    expect(month.reduce((n, m) => n + Number(m.downloads), 0)).toBe(205);
  }, 180_000);

  it("shows the dashboard the API's numbers", async () => {
    const overview = await downloadsOverview(server.services.database.db, projectId, 7, day2);
    const from = overview.from;
    expect(overview.byDay).toHaveLength(7);
    expect(overview.byDay).toEqual((await stats(`from=${from}&to=${day2}`)).rows);
    expect(overview.byFile).toEqual((await stats(`from=${from}&to=${day2}&by=file`)).rows);
    expect(overview.byVersion).toEqual((await stats(`from=${from}&to=${day2}&by=version`)).rows);
    expect(overview.byClient).toEqual((await stats(`from=${from}&to=${day2}&by=client`)).rows);
    expect(overview.total).toEqual((await stats(`from=${from}&to=${day2}`)).total);
    expect(overview.total).toMatchObject({ installs: 2, downloads: 203, machines: 5 });
  });

  it("validates the query with the contract's error codes, and defaults to the last 30 days", async () => {
    const bad = await pub.api("/api/v1/projects/gadget/stats?from=2026-02-30");
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatchObject({
      code: "VALIDATION_FAILED",
      message: expect.stringMatching(/calendar date/),
    });
    const reversed = await pub.api(`/api/v1/projects/gadget/stats?from=${day2}&to=${day1}`);
    expect((await reversed.json()).error.message).toBe("from must not be after to");
    const by = await pub.api("/api/v1/projects/gadget/stats?by=week");
    expect(by.status).toBe(400);
    const defaults = await stats("");
    expect(defaults.rows).toHaveLength(30);
    expect(defaults.rows.at(-1)!.key).toBe(day2);
    const anonymous = await fetch(`${server.url}/api/v1/projects/gadget/stats`);
    expect(anonymous.status).toBe(401);
  });

  it("serves badges: the latest version that isn't yanked, this month's installs and downloads, cacheable for 5 minutes", async () => {
    const res = await fetch(`${server.url}/dl/statsman/gadget/badge/version.svg`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    const etag = res.headers.get("etag")!;
    const version = parseSvg(await res.text());
    expect(version.texts).toEqual(["version", "1.1.0"]);
    expect(version.root["aria-label"]).toBe("version: 1.1.0");
    const again = await fetch(`${server.url}/dl/statsman/gadget/badge/version.svg`, {
      headers: { "if-none-match": etag },
    });
    expect(again.status).toBe(304);

    const yank = await pub.api("/api/v1/projects/gadget/releases/1.1.0/yank", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ reason: "broken" }),
    });
    expect(yank.status, await yank.clone().text()).toBe(200);
    const yanked = await fetch(`${server.url}/dl/statsman/gadget/badge/version.svg`);
    expect(parseSvg(await yanked.text()).texts).toEqual(["version", "1.0.0"]);

    const monthStart = `${day2.slice(0, 8)}01`;
    const month = (await stats(`from=${monthStart}&to=${day2}&by=client`)).total;
    // Day one may be in the month before: the badges count this month's.
    expect(month.downloads).toBeGreaterThanOrEqual(200);
    const downloads = await fetch(`${server.url}/dl/statsman/gadget/badge/downloads.svg`);
    expect(parseSvg(await downloads.text()).texts).toEqual(["downloads", `${month.downloads}/month`]);
    const installs = await fetch(`${server.url}/dl/statsman/gadget/badge/installs.svg`);
    expect(installs.headers.get("cache-control")).toBe("public, max-age=300");
    const installsBadge = parseSvg(await installs.text());
    expect(installsBadge.texts).toEqual(["installs", `${month.installs}/month`]);
    expect(installsBadge.root["aria-label"]).toBe(`installs: ${month.installs}/month`);
    expect((await fetch(`${server.url}/dl/statsman/gadget/badge/stars.svg`)).status).toBe(404);
  });

  it("keeps a private project's badges to those who may see its downloads", async () => {
    const created = await pub.api("/api/v1/projects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ slug: "secret", name: "Secret", visibility: "private" }),
    });
    expect(created.status).toBe(201);
    expect((await fetch(`${server.url}/dl/statsman/secret/badge/version.svg`)).status).toBe(404);
    const res = await pub.api("/dl/statsman/secret/badge/version.svg");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, max-age=300");
    expect(parseSvg(await res.text()).texts).toEqual(["version", "none"]);
  });

  it("writes a batch whose owner or project was deleted meanwhile, leaving those rows out", async () => {
    const db = server.services.database.db;
    const batch = new DownloadBatch();
    const at = new Date("2020-01-15T12:00:00Z");
    const file = { id: "batchfile", projectId, version: "0.0.1", filename: "old.bin" };
    batch.add({ ownerId: pub.userId, bytes: 10, file, download: true, client: "curl" }, at);
    batch.add({ ownerId: "deleted-user", bytes: 10 }, at);
    batch.add(
      {
        ownerId: pub.userId,
        bytes: 10,
        file: { ...file, id: "gonefile", projectId: "deleted-project" },
        download: true,
        client: "apt",
        distribution: "x".repeat(100),
      },
      at,
    );
    const totals = await writeDownloadBatch(db, batch);
    expect(totals).toEqual([{ ownerId: pub.userId, month: "2020-01", bytes: 20, notifiedPercent: 0 }]);
    const old = await stats("from=2020-01-01&to=2020-01-31&by=client");
    expect(old.rows).toEqual([{ key: "curl", installs: 0, downloads: 1, bytes: 10, machines: 0 }]);
  });

  it("writes the counts still in memory when the server stops", async () => {
    const other = await startLiveServer();
    try {
      const owner = await publisher(other, "stopper");
      const created = await owner.api("/api/v1/projects", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ slug: "halt", name: "Halt" }),
      });
      expect(created.status).toBe(201);
      const put = await owner.api("/api/v1/projects/halt/releases/1.0.0/files/halt.bin", {
        method: "PUT",
        body: "stop me\n",
      });
      expect(put.status).toBe(201);
      const res = await fetch(`${other.url}/dl/stopper/halt/releases/1.0.0/halt.bin`, {
        headers: { "user-agent": "curl/8.5.0" },
      });
      expect(await res.text()).toBe("stop me\n");
      // Stopped at once, well within the 2 s a count waits in memory.
      await other.stop();
      const reopened = openDatabase(other.services.config.database);
      try {
        const rows = await reopened.db.selectFrom("download_stat").select(["client", "downloads"]).execute();
        expect(rows.map((r) => [r.client, Number(r.downloads)])).toEqual([["curl", 1]]);
      } finally {
        await reopened.close();
      }
    } finally {
      await other.close();
    }
  });
});
