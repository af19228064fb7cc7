// The YUM side of the end-to-end publish (b): poll rpm/repodata/repomd.xml until it names a new
// primary.xml.gz, then fetch that file and repomd.xml.asc and check the new package is listed.
import { gunzipSync } from "node:zlib";
import type { EntryProbe } from "../../lib/packyard.ts";
import { primaryChecksum, primaryLocation } from "./createrepo.ts";

export const yumEntry: EntryProbe = {
  entry: "rpm/repodata/repomd.xml",
  fingerprint: primaryChecksum,
  async verify(server, repomd, rpm) {
    const res = await server.download(`rpm/${primaryLocation(repomd)}`);
    if (res.status !== 200) throw new Error(`primary.xml.gz: ${res.status}`);
    const primary = gunzipSync(new Uint8Array(await res.arrayBuffer())).toString("utf8");
    if (!primary.includes(`<name>${rpm.name}</name>`))
      throw new Error(`the new repomd.xml's primary.xml does not list ${rpm.name}`);
    const asc = await server.download("rpm/repodata/repomd.xml.asc").then((r) => r.text());
    if (!asc.startsWith("-----BEGIN PGP SIGNATURE-----"))
      throw new Error("repomd.xml.asc is not a signature");
  },
};
