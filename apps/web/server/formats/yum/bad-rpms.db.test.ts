// Broken or hostile .rpm uploads: each gets 400 with the reader's named code and stores
// nothing — no file, no row, no blob (not even the unsigned original), no index.
import { parseRpmPackage } from "@packyard/formats/rpm/read-rpm.ts";
import { RpmFormatError } from "@packyard/formats/rpm/rpm-format-error.ts";
import { stringArrayEntry } from "@packyard/formats/rpm/rpm-header-writer.ts";
import { RpmType, Tag } from "@packyard/formats/rpm/rpm-tags.ts";
import { basicHeaderEntries, syntheticRpm } from "@packyard/formats/rpm/testing/synthetic-rpm.ts";
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
  ({ auth } = await publishingProject(app, "rpmbreaker", "brittle"));
});
afterAll(async () => {
  await app?.close();
});

const state = () => storedState(app, ["release_file", "blob", "release", "yum_package", "repo_generation"]);

const base = syntheticRpm({ header: basicHeaderEntries() });
const LEAD = 96;
const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const signatureSize = 16 + 16 * view(base).getUint32(LEAD + 8) + view(base).getUint32(LEAD + 12);
const headerStart = LEAD + signatureSize + ((8 - (signatureSize % 8)) % 8);
function mutated(change: (bytes: Uint8Array, dv: DataView) => void) {
  const copy = new Uint8Array(base);
  change(copy, view(copy));
  return copy;
}

const cases: [string, Uint8Array][] = [
  ["truncated in the lead", base.subarray(0, 50)],
  ["truncated in the main header", base.subarray(0, headerStart + 20)],
  ["with a wrong lead magic", mutated((b) => b.set([0, 0, 0, 0], 0))],
  ["with a wrong header magic", mutated((b) => b.set([0, 0, 0, 0], headerStart))],
  [
    "with a header index entry pointing out of bounds",
    mutated((_b, dv) => dv.setUint32(headerStart + 16 + 16 + 8, 0x7fffffff)),
  ],
  ["with an absurd index count", mutated((_b, dv) => dv.setUint32(headerStart + 8, 0xffffffff))],
  ["with an absurd data length", mutated((_b, dv) => dv.setUint32(headerStart + 12, 0xffffffff))],
  ["whose header digest does not match", base],
];

describe(`bad .rpm uploads (${databaseKind})`, () => {
  it.each(cases)("refuses an .rpm %s with 400 and a named code, storing nothing", async (_label, bytes) => {
    let expected = "RPM_DIGEST_MISMATCH";
    try {
      parseRpmPackage(bytes);
    } catch (error) {
      expect(error).toBeInstanceOf(RpmFormatError);
      expected = (error as RpmFormatError).code;
    }
    const before = await state();
    const res = await app.request("/api/v1/projects/brittle/releases/1.0/files/broken-1-1.noarch.rpm", {
      method: "PUT",
      headers: auth,
      body: Buffer.from(bytes),
    });
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.code).toBe(expected);
    expect(error.code).toMatch(/^RPM_/);
    expect(await state()).toEqual(before);
  });

  it("refuses a 60 MB .rpm naming 60 million empty files with RPM_TOO_MANY_ENTRIES, storing nothing", async () => {
    // The crafted package of issue 10: it used to block the server for 15-24 s and take a
    // gigabyte before the 400. The count is refused from the header index, before decoding.
    const names = 60_000_000;
    const crafted = syntheticRpm({
      header: [
        ...basicHeaderEntries(),
        stringArrayEntry(Tag.DIRNAMES, ["/"]),
        { tag: Tag.BASENAMES, type: RpmType.STRING_ARRAY, count: names, data: new Uint8Array(names) },
      ],
    });
    const before = await state();
    const rssBefore = process.memoryUsage().rss;
    const res = await app.request("/api/v1/projects/brittle/releases/1.0/files/crafted-1-1.noarch.rpm", {
      method: "PUT",
      headers: auth,
      body: new Uint8Array(crafted.buffer as ArrayBuffer, crafted.byteOffset, crafted.byteLength),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe("RPM_TOO_MANY_ENTRIES");
    // The upload itself is streamed to disk; nothing near the 1 GB of decoded names is allocated.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(256 * 1024 * 1024);
    expect(await state()).toEqual(before);
  });

  it("refuses a reserved or malformed group name", async () => {
    for (const group of ["repodata", "Bad Group", "-x"]) {
      const res = await app.request(
        `/api/v1/projects/brittle/releases/1.0/files/x-1-1.noarch.rpm?group=${encodeURIComponent(group)}`,
        { method: "PUT", headers: auth, body: Buffer.from(base) },
      );
      expect(res.status).toBe(400);
      expect((await res.json()).error.code).toBe("INVALID_GROUP");
    }
  });
});
