// A downgrade never deletes anything (decision 018): an account on Pro with two private projects
// goes back to Basic (one private project) through the operator's plan; both repositories keep
// installing with real apt-get (in a private root, with each project's read token as
// setup.deb.sh writes it), while uploads to them answer 403 PLAN_LIMIT and store nothing until
// the account is within its limits again. SQLite and PostgreSQL.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type AptRoot, aptRoot } from "../../test/apt-client.ts";
import { databaseKind } from "../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../test/live-server.ts";
import { removeTempDirs } from "../../test/temp-dirs.ts";
import { setOperatorPlan } from "./plan.ts";
import { flushDownloadCounts } from "./usage.ts";

const hasTools = requireTools(["apt-get", "apt-cache", "dpkg", "gpgv"]);
const USER = "downgraded";
const PROJECTS = ["inhouse", "backoffice"] as const;

function deb(name: string, version: string) {
  return buildTestDeb({
    control: `Package: ${name}
Version: ${version}
Architecture: amd64
Maintainer: Packyard Tests <tests@example.com>
Description: ${name} for the downgrade test
 It installs one script.
`,
    dataFiles: [{ name: `./usr/bin/${name}`, data: `#!/bin/sh\necho ${name} ${version}\n` }],
  });
}

let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;
const readTokens = new Map<string, string>();

function upload(project: string, version: string, name: string) {
  return pub.api(`/api/v1/projects/${project}/releases/${version}/files/${name}_${version}_amd64.deb`, {
    method: "PUT",
    body: Buffer.from(deb(name, version)),
  });
}

/** A machine set up for one private repository: keyring, source line, read token in auth.conf.d. */
async function machine(project: string): Promise<AptRoot> {
  const token = readTokens.get(project)!;
  const apt = aptRoot();
  const res = await fetch(`${server.url}/dl/${USER}/${project}/keyring.gpg`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.status).toBe(200);
  const keyring = join(apt.root, `${project}.gpg`);
  writeFileSync(keyring, Buffer.from(await res.arrayBuffer()));
  writeFileSync(
    join(apt.root, "etc/apt/sources.list"),
    `deb [signed-by=${keyring}] ${server.url}/dl/${USER}/${project}/deb stable main\n`,
  );
  writeFileSync(
    join(apt.root, "etc/apt/auth.conf.d/packyard.conf"),
    `machine http://127.0.0.1:${server.port}/dl/${USER}/${project}/deb login token password ${token}\n`,
    { mode: 0o600 },
  );
  return apt;
}

async function fileCount(): Promise<number> {
  const { n } = await server.services.database.db
    .selectFrom("release_file")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(n);
}

beforeAll(async () => {
  if (!hasTools) return;
  server = await startLiveServer();
  pub = await publisher(server, USER);
  await setOperatorPlan(server.services.database.db, pub.userId, "pro");
  for (const slug of PROJECTS) {
    const res = await pub.api("/api/v1/projects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ slug, name: slug, visibility: "private" }),
    });
    expect(res.status).toBe(201);
    const { project } = (await res.json()) as { project: { id: string } };
    readTokens.set(slug, await pub.key({ projects: [project.id], access: "read" }));
    expect((await upload(slug, "1.0.0", `${slug}-tool`)).status).toBe(201);
  }
}, 60_000);
afterAll(async () => {
  await server?.close();
  removeTempDirs();
});

describe.runIf(hasTools)(`a downgrade from Pro to Basic (${databaseKind})`, () => {
  it("keeps both private repositories installable with apt-get and refuses uploads to them", async () => {
    await setOperatorPlan(server.services.database.db, pub.userId, "basic");

    for (const slug of PROJECTS) {
      // The repository is published in the background after the upload.
      await vi.waitFor(
        async () => {
          const res = await fetch(
            `${server.url}/dl/${USER}/${slug}/deb/dists/stable/main/binary-amd64/Packages`,
            {
              headers: { authorization: `Bearer ${readTokens.get(slug)}` },
            },
          );
          expect(await res.text()).toContain(`Package: ${slug}-tool`);
        },
        { timeout: 20_000 },
      );
      const apt = await machine(slug);
      await apt.update();
      await apt.install(`${slug}-tool`);
      expect(readFileSync(join(apt.root, `usr/bin/${slug}-tool`), "utf8")).toContain(
        `echo ${slug}-tool 1.0.0`,
      );
    }

    // What apt fetched over the socket (indexes and packages) counts in the month's bytes.
    const debBytes = PROJECTS.reduce((sum, slug) => sum + deb(`${slug}-tool`, "1.0.0").length, 0);
    await vi.waitFor(async () => {
      await flushDownloadCounts(server.services.database.db);
      const month = await server.services.database.db
        .selectFrom("download_month")
        .select("bytes")
        .where("owner_id", "=", pub.userId)
        .executeTakeFirst();
      expect(Number(month?.bytes ?? 0)).toBeGreaterThan(debBytes);
    });

    const files = await fileCount();
    for (const slug of PROJECTS) {
      const refused = await upload(slug, "1.1.0", `${slug}-tool`);
      expect(refused.status).toBe(403);
      const { error } = (await refused.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe("PLAN_LIMIT");
      expect(error.message).toContain("Your Basic plan includes 1 private project and your account has 2");
    }
    expect(await fileCount()).toBe(files);
    const release = await server.services.database.db
      .selectFrom("release")
      .select("id")
      .where("version", "=", "1.1.0")
      .executeTakeFirst();
    expect(release).toBeUndefined();

    // Within its limits again (one project made public), uploads to the private one go through.
    const made = await pub.api("/api/v1/projects/backoffice", {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ visibility: "public" }),
    });
    expect(made.status).toBe(200);
    expect((await upload("inhouse", "1.1.0", "inhouse-tool")).status).toBe(201);
  }, 180_000);
});
