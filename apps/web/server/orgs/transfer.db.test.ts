// A project moved from its user to an organization (issue 19, decision 040; POST
// /api/v1/projects/{slug}/transfer) keeps installing from its old source lines: real apt-get and
// dnf in private roots, configured with /dl/{olduser}/{slug}/… before the transfer, follow the
// 301s to /dl/{org}/{slug}/… — packages uploaded after the transfer included — and a private
// repository keeps answering at the old path to the credentials apt holds for it (apt does not
// send them to a redirect's target). Runs on SQLite and on PostgreSQL.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { buildTestRpms, type TestRpms } from "@packyard/formats/rpm/testing/build-test-rpms.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AptRoot, aptMachineFor } from "../../test/apt-client.ts";
import { dnfRoot } from "../../test/dnf-client.ts";
import { databaseKind } from "../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../test/live-server.ts";
import { removeTempDirs } from "../../test/temp-dirs.ts";
import { createOrganization } from "./storage.ts";

const hasTools = requireTools(["apt-get", "apt-cache", "dpkg", "gpgv", "rpmbuild", "rpm", "dnf", "gpg"]);

const OLD = "soloist";
const ORG = "ensemble";

function deb(name: string, version: string) {
  return buildTestDeb({
    control: `Package: ${name}
Version: ${version}
Architecture: amd64
Maintainer: Packyard Tests <tests@example.com>
Description: ${name} for the transfer test
 It installs one script.
`,
    dataFiles: [{ name: `./usr/bin/${name}`, data: `#!/bin/sh\necho ${name} ${version}\n` }],
  });
}

let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;
let rpms: TestRpms;
let readToken: string;

async function upload(project: string, version: string, filename: string, body: Uint8Array) {
  const res = await pub.api(`/api/v1/projects/${project}/releases/${version}/files/${filename}`, {
    method: "PUT",
    body: Buffer.from(body),
  });
  expect(res.status, await res.clone().text()).toBe(201);
}
const uploadDeb = (project: string, version: string, name: string) =>
  upload(project, version, `${name}_${version}_amd64.deb`, deb(name, version));
const uploadRpm = (project: string, version: string, path: string) =>
  upload(project, version, path.split("/").pop()!, readFileSync(path));

/** A machine with the repository's keyring and the source line naming the OLD owner. */
const machine = (project: string, token?: string): Promise<AptRoot> =>
  aptMachineFor(server, OLD, project, token);

const failed = (result: { status: number | null; stdout: string; stderr: string }) =>
  `exit ${result.status}\n${result.stdout}\n${result.stderr}`;

beforeAll(async () => {
  if (!hasTools) return;
  rpms = buildTestRpms();
  server = await startLiveServer();
  pub = await publisher(server, OLD);
  for (const [slug, visibility] of [
    ["tools", "public"],
    ["inhouse", "private"],
  ] as const) {
    const res = await pub.api("/api/v1/projects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ slug, name: slug, visibility, keyAlgorithm: "ed25519" }),
    });
    expect(res.status).toBe(201);
  }
  const inhouse = await server.services.database.db
    .selectFrom("project")
    .select("id")
    .where("slug", "=", "inhouse")
    .executeTakeFirstOrThrow();
  readToken = await pub.key({ projects: [inhouse.id], access: "read" });
  await createOrganization(
    server.services.database.db,
    { kind: "session", userId: pub.userId },
    { slug: ORG, name: "Ensemble" },
  );
}, 120_000);
afterAll(async () => {
  await server?.close();
  rpms?.cleanup();
  removeTempDirs();
});

describe.runIf(hasTools)(`apt-get and dnf after a transfer to an organization (${databaseKind})`, () => {
  it("machines set up with the old owner keep updating and installing, new uploads included", async () => {
    await uploadDeb("tools", "1.0.0", "hello");
    await uploadRpm("tools", "1.0.0", rpms.alpha);
    await uploadDeb("inhouse", "1.0.0", "secret");
    const before = await machine("tools");
    await before.update();
    const privateBefore = await machine("inhouse", readToken);
    await privateBefore.update();

    for (const slug of ["tools", "inhouse"]) {
      const res = await pub.api(`/api/v1/projects/${slug}/transfer`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ owner: ORG }),
      });
      expect(res.status, await res.clone().text()).toBe(200);
      expect((await res.json()).project.owner).toBe(ORG);
    }
    const moved = await fetch(`${server.url}/dl/${OLD}/tools/deb/dists/stable/InRelease`, {
      redirect: "manual",
    });
    expect(moved.status).toBe(301);
    expect(moved.headers.get("location")).toContain(`/dl/${ORG}/tools/deb/dists/stable/InRelease`);
    // The private one is not told to anyone without credentials, at either name.
    expect((await fetch(`${server.url}/dl/${OLD}/inhouse/deb/dists/stable/InRelease`)).status).toBe(404);
    expect((await fetch(`${server.url}/dl/${ORG}/inhouse/deb/dists/stable/InRelease`)).status).toBe(404);

    // Published after the transfer: the next update must read the new indexes through the redirect.
    await uploadDeb("tools", "1.1.0", "hello");
    await uploadRpm("tools", "1.1.0", rpms.beta);
    await uploadDeb("inhouse", "1.1.0", "secret");
    // apt refuses a repository whose Label changed: it keeps the one clients have seen.
    const release = await (await fetch(`${server.url}/dl/${ORG}/tools/deb/dists/stable/Release`)).text();
    expect(release).toMatch(new RegExp(`^Label: ${OLD}/tools$`, "m"));

    await before.update();
    await before.install("hello");
    expect(readFileSync(join(before.root, "usr/bin/hello"), "utf8")).toContain("echo hello 1.1.0");
    expect(readFileSync(join(before.root, "etc/apt/sources.list"), "utf8")).toContain(`/dl/${OLD}/tools/deb`);

    await privateBefore.update();
    await privateBefore.install("secret");
    expect(readFileSync(join(privateBefore.root, "usr/bin/secret"), "utf8")).toContain("echo secret 1.1.0");

    // dnf with the old repository and key URLs: beta, uploaded after the transfer, and alpha,
    // which it requires.
    const dnf = dnfRoot();
    const result = await dnf.dnf(`${server.url}/dl/${OLD}/tools/rpm`, ["install", "packyard-beta"], {
      keyUrl: `${server.url}/dl/${OLD}/tools/gpg.key`,
    });
    expect(result.status, failed(result)).toBe(0);
    expect(existsSync(join(dnf.root, "usr/bin/beta"))).toBe(true);
  }, 240_000);
});
