import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { buildYumRepodata } from "./build-yum-repodata.ts";
import { SAMPLE_FILE, samplePackage } from "./testing/sample-package.ts";

describe("buildYumRepodata", () => {
  it("renders the three files and a repomd.xml that points at them", () => {
    const { files, repomdXml } = buildYumRepodata({
      packages: [
        { metadata: samplePackage(), file: SAMPLE_FILE },
        { metadata: samplePackage({ name: "second" }), file: { ...SAMPLE_FILE, checksum: "f".repeat(64) } },
      ],
      timestamp: 1700000000,
      revision: "r1",
    });
    expect(files.map((f) => f.entry.type)).toEqual(["primary", "filelists", "other"]);
    for (const file of files) {
      expect(gunzipSync(file.bytes).toString()).toContain('packages="2"');
      expect(repomdXml).toContain(`<location href="${file.path}"/>`);
    }
    expect(repomdXml).toContain("<revision>r1</revision>");
  });
});
