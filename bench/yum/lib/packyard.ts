// The YUM side of the end-to-end publish (b): poll rpm/repodata/repomd.xml until it names a new
// primary.xml.gz, then fetch that file and repomd.xml.asc and check the new package is listed.
import { gunzipSync } from "node:zlib";
import type { FloorInput } from "../../lib/floor.ts";
import type { EntryProbe, PackyardServer } from "../../lib/packyard.ts";
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

/**
 * What the publish just measured produced anew, for its floor (bench/lib/floor.ts): the three
 * .xml.gz files named by repomd.xml and their XML (repomd lists each one's checksum and
 * open-checksum, SHA256), and repomd.xml itself, which is signed.
 */
export async function yumFloorInput(server: PackyardServer): Promise<FloorInput> {
  const repomd = await server.download("rpm/repodata/repomd.xml").then((r) => r.text());
  const hashed: FloorInput["hashed"] = [];
  for (const [, location] of repomd.matchAll(/<location href="([^"]+)"/g)) {
    const res = await server.download(`rpm/${location}`);
    if (res.status !== 200) throw new Error(`${location}: ${res.status}`);
    const gz = new Uint8Array(await res.arrayBuffer());
    hashed.push({ path: location!, bytes: gz, algorithms: ["sha256"] });
    hashed.push({ path: location!.replace(/\.gz$/, ""), bytes: gunzipSync(gz), algorithms: ["sha256"] });
  }
  hashed.push({ path: "repodata/repomd.xml", bytes: Buffer.from(repomd), algorithms: ["sha256"] });
  return { hashed, entry: repomd, signatures: "detached" };
}
