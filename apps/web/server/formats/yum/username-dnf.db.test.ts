// A machine set up before its publisher changed their username (decision 014), with dnf: the
// repository URL and its key URL name the old username; dnf follows the 301s to the new name and
// installs with gpgcheck and repo_gpgcheck on, from a public repository and from a private one
// with the read token in the repository's credentials. Runs on SQLite and on PostgreSQL.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildTestRpms, type TestRpms } from "@packyard/formats/rpm/testing/build-test-rpms.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dnfRoot } from "../../../test/dnf-client.ts";
import { databaseKind } from "../../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../../test/live-server.ts";
import { removeTempDirs } from "../../../test/temp-dirs.ts";
import { changeProfile } from "../../accounts/use-cases.ts";

const hasTools = requireTools(["rpmbuild", "rpm", "dnf", "gpg"]);

const OLD = "rpmuser";
const NEW = "Rpm_User";

let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;
let rpms: TestRpms;
let readToken: string;

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
    const created = await pub.api("/api/v1/projects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ slug, name: slug, visibility }),
    });
    expect(created.status).toBe(201);
    const filename = rpms.alpha.split("/").pop()!;
    const uploaded = await pub.api(`/api/v1/projects/${slug}/releases/1.0.0/files/${filename}`, {
      method: "PUT",
      body: readFileSync(rpms.alpha),
    });
    expect(uploaded.status).toBe(201);
  }
  const inhouse = await server.services.database.db
    .selectFrom("project")
    .select("id")
    .where("slug", "=", "inhouse")
    .executeTakeFirstOrThrow();
  readToken = await pub.key({ projects: [inhouse.id], access: "read" });
  // As the profile page changes it: a use case, which announces the change (decision 074).
  await changeProfile(
    { db: server.services.database.db },
    { actor: { kind: "session", userId: pub.userId }, address: null },
    { username: NEW },
  );
}, 120_000);
afterAll(async () => {
  await server?.close();
  rpms?.cleanup();
  removeTempDirs();
});

describe.runIf(hasTools)(`dnf after a username change (${databaseKind})`, () => {
  it("installs from the public repository named with the old username", async () => {
    const moved = await fetch(`${server.url}/dl/${OLD}/tools/rpm/repodata/repomd.xml`, {
      redirect: "manual",
    });
    expect(moved.status).toBe(301);
    const result = await dnfRoot().dnf(`${server.url}/dl/${OLD}/tools/rpm`, ["install", "packyard-alpha"], {
      keyUrl: `${server.url}/dl/${OLD}/tools/gpg.key`,
    });
    expect(result.status, failed(result)).toBe(0);
  }, 180_000);

  it("installs from the private repository named with the old username, with its read token", async () => {
    // The machine fetched the key when it was set up, with the token, as setup.rpm.sh does.
    const client = dnfRoot();
    const keyFile = join(client.root, "inhouse.asc");
    const key = await fetch(`${server.url}/dl/${OLD}/inhouse/gpg.key`, {
      headers: { authorization: `Bearer ${readToken}` },
    });
    expect(key.status).toBe(200);
    writeFileSync(keyFile, await key.text());
    const url = `${server.url}/dl/${OLD}/inhouse/rpm`;
    const denied = await dnfRoot().dnf(url, ["install", "packyard-alpha"], { keyUrl: `file://${keyFile}` });
    expect(denied.status).not.toBe(0);
    const result = await client.dnf(url, ["install", "packyard-alpha"], {
      keyUrl: `file://${keyFile}`,
      username: "token",
      password: readToken,
    });
    expect(result.status, failed(result)).toBe(0);
  }, 180_000);
});
