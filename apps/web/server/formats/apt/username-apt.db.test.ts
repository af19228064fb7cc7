// A machine set up before its publisher changed their username (decision 014): real apt-get in
// a private root, with the source line (and, for a private repository, the auth.conf entry)
// naming the old username, keeps updating and installing through the 301s to the new name —
// a machine that had already updated, and a new one given the old line. Runs on SQLite and on
// PostgreSQL.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AptRoot, aptMachineFor } from "../../../test/apt-client.ts";
import { databaseKind } from "../../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../../test/live-server.ts";
import { removeTempDirs } from "../../../test/temp-dirs.ts";
import { changeProfile } from "../../accounts/use-cases.ts";

const hasTools = requireTools(["apt-get", "apt-cache", "dpkg", "gpgv"]);

const OLD = "olduser";
const NEW = "New_User";

function deb(name: string, version: string) {
  return buildTestDeb({
    control: `Package: ${name}
Version: ${version}
Architecture: amd64
Maintainer: Packyard Tests <tests@example.com>
Description: ${name} for the username change test
 It installs one script.
`,
    dataFiles: [{ name: `./usr/bin/${name}`, data: `#!/bin/sh\necho ${name} ${version}\n` }],
  });
}

let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;
let readToken: string;

async function upload(project: string, version: string, name: string) {
  const res = await pub.api(
    `/api/v1/projects/${project}/releases/${version}/files/${name}_${version}_amd64.deb`,
    { method: "PUT", body: Buffer.from(deb(name, version)) },
  );
  expect(res.status, await res.clone().text()).toBe(201);
}

/** A machine with the repository's keyring and the source line naming the OLD username. */
const machine = (project: string, token?: string): Promise<AptRoot> =>
  aptMachineFor(server, OLD, project, token);

beforeAll(async () => {
  if (!hasTools) return;
  server = await startLiveServer();
  pub = await publisher(server, OLD);
  for (const [slug, visibility] of [
    ["tools", "public"],
    ["inhouse", "private"],
  ] as const) {
    const res = await pub.api("/api/v1/projects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ slug, name: slug, visibility }),
    });
    expect(res.status).toBe(201);
  }
  const inhouse = await server.services.database.db
    .selectFrom("project")
    .select("id")
    .where("slug", "=", "inhouse")
    .executeTakeFirstOrThrow();
  readToken = await pub.key({ projects: [inhouse.id], access: "read" });
}, 60_000);
afterAll(async () => {
  await server?.close();
  removeTempDirs();
});

describe.runIf(hasTools)(`apt-get after a username change (${databaseKind})`, () => {
  it("a machine set up with the old name keeps updating and installing; so does a new one with the old line", async () => {
    await upload("tools", "1.0.0", "hello");
    await upload("inhouse", "1.0.0", "secret");
    const before = await machine("tools");
    await before.update();
    const privateBefore = await machine("inhouse", readToken);
    await privateBefore.update();

    // As the profile page changes it: a use case, which announces the change (decision 074).
    await changeProfile(
      { db: server.services.database.db },
      { actor: { kind: "session", userId: pub.userId }, address: null },
      { username: NEW },
    );
    expect(
      (await fetch(`${server.url}/dl/${OLD}/tools/deb/dists/stable/InRelease`, { redirect: "manual" }))
        .status,
    ).toBe(301);
    // Something new to fetch: the next update must read the new indexes through the redirect.
    await upload("tools", "1.1.0", "hello");
    await upload("inhouse", "1.1.0", "secret");

    // apt refuses a repository whose Label changed: the Label keeps the name it was published with.
    const release = await (await fetch(`${server.url}/dl/${NEW}/tools/deb/dists/stable/Release`)).text();
    expect(release).toMatch(new RegExp(`^Label: ${OLD}/tools$`, "m"));

    await before.update();
    await before.install("hello");
    expect(readFileSync(join(before.root, "usr/bin/hello"), "utf8")).toContain("echo hello 1.1.0");
    // The source line still names the old name: nothing on the machine changed.
    expect(readFileSync(join(before.root, "etc/apt/sources.list"), "utf8")).toContain(`/dl/${OLD}/tools/deb`);

    const fresh = await machine("tools");
    await fresh.update();
    await fresh.install("hello");
    expect(existsSync(join(fresh.root, "usr/bin/hello"))).toBe(true);

    await privateBefore.update();
    await privateBefore.install("secret");
    expect(readFileSync(join(privateBefore.root, "usr/bin/secret"), "utf8")).toContain("echo secret 1.1.0");
  }, 180_000);
});
