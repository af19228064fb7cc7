import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { buildRepodataFile } from "./repodata-file.ts";

describe("buildRepodataFile", () => {
  it("gzips, names the file by its checksum and describes it for repomd.xml", () => {
    const xml = "<metadata>ü</metadata>";
    const file = buildRepodataFile("other", xml, 1234);
    const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
    expect(gunzipSync(file.bytes).toString("utf8")).toBe(xml);
    expect(file.path).toBe(`repodata/${sha(file.bytes)}-other.xml.gz`);
    expect(file.entry).toEqual({
      type: "other",
      checksum: sha(file.bytes),
      openChecksum: sha(Buffer.from(xml)),
      location: file.path,
      timestamp: 1234,
      size: file.bytes.length,
      openSize: Buffer.byteLength(xml),
    });
  });

  it("is deterministic, so an unchanged repository republishes the same names", () => {
    expect(buildRepodataFile("primary", "<x/>", 1).bytes).toEqual(
      buildRepodataFile("primary", "<x/>", 2).bytes,
    );
  });
});
