import { describe, expect, it } from "vitest";
import { renderRepomd } from "./repomd-xml.ts";

describe("renderRepomd", () => {
  it("writes repomd.xml as createrepo_c does", () => {
    expect(
      renderRepomd({
        revision: 1795257160,
        entries: [
          {
            type: "primary",
            checksum: "aa",
            openChecksum: "bb",
            location: "repodata/aa-primary.xml.gz",
            timestamp: 1795257160,
            size: 1112,
            openSize: 3568,
          },
        ],
      }),
    ).toBe(`<?xml version="1.0" encoding="UTF-8"?>
<repomd xmlns="http://linux.duke.edu/metadata/repo" xmlns:rpm="http://linux.duke.edu/metadata/rpm">
  <revision>1795257160</revision>
  <data type="primary">
    <checksum type="sha256">aa</checksum>
    <open-checksum type="sha256">bb</open-checksum>
    <location href="repodata/aa-primary.xml.gz"/>
    <timestamp>1795257160</timestamp>
    <size>1112</size>
    <open-size>3568</open-size>
  </data>
</repomd>
`);
  });
});
