// How the block size of YUM's block-compressed repodata trades file size for publish work: for
// each block size, the three .gz files' total size (vs one gzip member per file) and the time to
// rebuild them after one more package, with the previous build's members cached. Reads the
// fragments of a seeded data directory (bench/quick.ts yum keeps one). Prints JSON.
//
//   node bench/yum/block-size.ts <packyard.sqlite> [sizes=16,32,64,128]
import { DatabaseSync } from "node:sqlite";
import { gzipSync } from "node:zlib";
import {
  type GzipMemberCache,
  gzipBlocks,
  splitIntoBlocks,
} from "../../packages/formats/src/compress/gzip-members.ts";

const [file, sizesArg] = process.argv.slice(2);
if (!file) throw new Error("usage: node bench/yum/block-size.ts <packyard.sqlite> [sizes]");
const db = new DatabaseSync(file, { readOnly: true });
type Row = { id: string; name: string; primary_xml: string; filelists_xml: string; other_xml: string };
const rows = db
  .prepare(
    "SELECT file_id AS id, name, primary_xml, filelists_xml, other_xml FROM yum_package ORDER BY name, arch",
  )
  .all() as Row[];
const documents = ["primary_xml", "filelists_xml", "other_xml"] as const;
const whole = documents.reduce(
  (sum, d) => sum + gzipSync(Buffer.from(rows.map((r) => r[d]).join("")), { level: 6 }).length,
  0,
);
const added = {
  ...rows[Math.floor(rows.length / 2)]!,
  id: "new",
  name: `${rows[Math.floor(rows.length / 2)]!.name}a`,
};
const after = [...rows];
after.splice(Math.floor(rows.length / 2) + 1, 0, added);

const results = [];
for (const size of (sizesArg ?? "16,32,64,128").split(",").map(Number)) {
  let bytes = 0;
  const times: number[] = [];
  for (const document of documents) {
    const build = (list: Row[], previous?: GzipMemberCache) => {
      const next: GzipMemberCache = new Map();
      const blocks = splitIntoBlocks(list, { name: (r) => r.name, id: (r) => r.id }, size).map((b) => ({
        key: b.key,
        text: () => b.items.map((r) => r[document]).join(""),
      }));
      return { gz: gzipBlocks(blocks, { previous, next }), next };
    };
    const first = build(rows);
    bytes += first.gz.gzip.length;
    const started = performance.now();
    build(after, first.next);
    times.push(performance.now() - started);
  }
  results.push({
    blockSize: size,
    packages: rows.length,
    gzBytes: bytes,
    vsOneMember: +(bytes / whole - 1).toFixed(3),
    rebuildAfterOneMoreMs: +times.reduce((a, b) => a + b, 0).toFixed(1),
  });
}
console.log(JSON.stringify({ oneMemberBytes: whole, results }, null, 2));
