// Hostile or broken .deb uploads: each gets 400 with a named code and changes nothing — no
// file, no row, no blob, no release, no index.
import {
  arArchive,
  buildTestDeb,
  compress,
  controlTar,
  tarArchive,
} from "@packyard/formats/deb/test-deb-builder.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestApp,
  databaseKind,
  publishingProject,
  storedState,
  type TestApp,
} from "../../../test/harness.ts";

let app: TestApp;
let auth: Record<string, string>;

beforeAll(async () => {
  app = await createTestApp();
  ({ auth } = await publishingProject(app, "breaker", "fragile"));
});
afterAll(async () => {
  await app?.close();
});

const state = () => storedState(app, ["release_file", "blob", "release", "deb_package", "repo_generation"]);

const valid = buildTestDeb();
const noPackage = buildTestDeb({
  control: "Version: 1.0\nArchitecture: amd64\nMaintainer: X <x@example.com>\nDescription: no name\n",
});
const enormousControl = arArchive([
  { name: "debian-binary", data: "2.0\n" },
  // 9 MiB of control.tar, compressed to almost nothing: over the 8 MiB cap once inflated.
  {
    name: "control.tar.gz",
    data: compress(tarArchive([{ name: "./control", data: "x".repeat(9 * 1024 * 1024) }]), "gzip"),
  },
  { name: "data.tar.gz", data: compress(tarArchive([]), "gzip") },
]);
const noControlMember = arArchive([
  { name: "debian-binary", data: "2.0\n" },
  { name: "data.tar.gz", data: compress(tarArchive([]), "gzip") },
]);
const badVersion = buildTestDeb({
  control:
    "Package: tool\nVersion: not a version!\nArchitecture: amd64\nMaintainer: X <x@example.com>\nDescription: bad\n",
});

describe(`bad .deb uploads (${databaseKind})`, () => {
  it.each([
    ["truncated", valid.subarray(0, Math.floor(valid.length / 2)), "DEB_TRUNCATED"],
    [
      "not an ar archive",
      new TextEncoder().encode("PK\u0003\u0004 this is a zip file, not a deb"),
      "DEB_NOT_AR",
    ],
    ["without a control member", noControlMember, "DEB_MISSING_CONTROL"],
    ["whose control has no Package field", noPackage, "DEB_MISSING_FIELD"],
    ["with an enormous control member", enormousControl, "DEB_CONTROL_TOO_LARGE"],
    ["with an invalid version", badVersion, "DEB_BAD_FIELD"],
    [
      "with control.tar holding no control file",
      arArchive([
        { name: "debian-binary", data: "2.0\n" },
        { name: "control.tar.gz", data: compress(controlTar({ controlPath: "./other" }), "gzip") },
        { name: "data.tar.gz", data: compress(tarArchive([]), "gzip") },
      ]),
      "DEB_MISSING_CONTROL",
    ],
  ])("refuses a .deb %s with 400 %s and changes nothing", async (_label, bytes, code) => {
    const before = await state();
    const res = await app.request("/api/v1/projects/fragile/releases/9.9.9/files/broken_1.0_amd64.deb", {
      method: "PUT",
      headers: auth,
      body: Buffer.from(bytes),
    });
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.code).toBe(code);
    expect(error.message.length).toBeGreaterThan(5);
    expect(await state()).toEqual(before);
  });

  it("accepts the same upload once it is a valid .deb", async () => {
    const res = await app.request("/api/v1/projects/fragile/releases/9.9.9/files/hello_1.0_amd64.deb", {
      method: "PUT",
      headers: auth,
      body: Buffer.from(valid),
    });
    expect(res.status).toBe(201);
    expect((await state()).deb_package).toBe(1);
  });

  it("refuses a bad distribution or component name", async () => {
    const res = await app.request(
      "/api/v1/projects/fragile/releases/9.9.9/files/other_1.0_amd64.deb?distribution=Not%20Valid",
      { method: "PUT", headers: auth, body: Buffer.from(valid) },
    );
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe("INVALID_DISTRIBUTION");
  });
});
