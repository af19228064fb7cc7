// An .rpm whose payload was changed after it was built (one byte) is refused with
// RPM_PAYLOAD_DIGEST_MISMATCH and nothing is stored; the package as rpmbuild made it is
// accepted, and rpmkeys finds every digest and the project's signature of the stored file good.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseRpmFile } from "@packyard/formats/rpm/rpm-file.ts";
import { buildTestRpms, type TestRpms } from "@packyard/formats/rpm/testing/build-test-rpms.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "../../../test/apt-client.ts";
import {
  createTestApp,
  databaseKind,
  publishingProject,
  storedState,
  type TestApp,
} from "../../../test/harness.ts";

const hasTools = requireTools(["rpmbuild", "rpmkeys"]);

let app: TestApp;
let auth: Record<string, string>;
let rpms: TestRpms;

beforeAll(async () => {
  if (!hasTools) return;
  rpms = buildTestRpms();
  app = await createTestApp();
  ({ auth } = await publishingProject(app, "digester", "payloads"));
}, 120_000);
afterAll(async () => {
  await app?.close();
  rpms?.cleanup();
});

const state = () => storedState(app, ["release_file", "blob", "release", "yum_package", "repo_generation"]);
const put = (filename: string, bytes: Uint8Array) =>
  app.request(`/api/v1/projects/payloads/releases/1.0/files/${filename}`, {
    method: "PUT",
    headers: auth,
    body: Buffer.from(bytes),
  });

describe.runIf(hasTools)(`.rpm payload digests on upload (${databaseKind})`, () => {
  it("refuses an .rpm whose payload does not match its digest with RPM_PAYLOAD_DIGEST_MISMATCH, storing nothing", async () => {
    const original = new Uint8Array(readFileSync(rpms.alpha));
    const { headerEnd } = parseRpmFile(original);
    const before = await state();
    for (const at of [headerEnd + 10, original.length - 100]) {
      const changed = new Uint8Array(original);
      changed[at] = changed[at]! ^ 1;
      const res = await put("packyard-alpha-1.2.3-4.noarch.rpm", changed);
      expect(res.status).toBe(400);
      const { error } = await res.json();
      expect(error.code).toBe("RPM_PAYLOAD_DIGEST_MISMATCH");
      expect(await state()).toEqual(before);
    }
  });

  it("accepts the package as built; rpmkeys finds the stored file's digests and signature good", async () => {
    const res = await put("packyard-alpha-1.2.3-4.noarch.rpm", readFileSync(rpms.alpha));
    expect(res.status, await res.clone().text()).toBe(201);
    const { file } = await res.json();
    const stored = Buffer.from(await (await app.request(new URL(file.url).pathname)).arrayBuffer());
    const key = await (await app.request("/dl/digester/payloads/gpg.key")).text();
    const dir = mkdtempSync(join(tmpdir(), "packyard-rpmdb-"));
    try {
      writeFileSync(join(dir, "key.asc"), key);
      writeFileSync(join(dir, "pkg.rpm"), stored);
      const imported = await runCommand(["rpmkeys", "--dbpath", dir, "--import", join(dir, "key.asc")], {});
      expect(imported.status, imported.stderr).toBe(0);
      const checked = await runCommand(["rpmkeys", "--dbpath", dir, "-Kv", join(dir, "pkg.rpm")], {
        LC_ALL: "C",
      });
      expect(checked.status, checked.stdout + checked.stderr).toBe(0);
      expect(checked.stdout).toContain("Payload SHA256 digest: OK");
      expect(checked.stdout).not.toContain("BAD");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
