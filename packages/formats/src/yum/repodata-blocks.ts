// Joins stored per-package fragments into the three repodata files, each compressed a block of
// packages at a time with the members of the previous build reused (compress/gzip-members.ts):
// publishing one more package into a repository of thousands recompresses a few small blocks.
import {
  type GzipMemberCache,
  gzipBlocks,
  type ItemBlocksByFirst,
  nameHash,
  splitIntoBlocks,
} from "../compress/gzip-members.ts";
import { filelistsXmlEnvelope } from "./filelists-xml.ts";
import { otherXmlEnvelope } from "./other-xml.ts";
import { primaryXmlEnvelope } from "./primary-xml.ts";
import { type RepodataFile, repodataFile } from "./repodata-file.ts";
import type { RepodataType } from "./repomd-xml.ts";

/** A package's fragments as rendered at upload (render*Package), in repository order. */
export interface PackageFragments {
  /** Identifies the package's fragments, which never change (the stored file's id). */
  id: string;
  name: string;
  primary: string;
  filelists: string;
  other: string;
  /** nameHash(name), when the caller keeps it with the package (computed otherwise). */
  nameHash?: number;
}

/**
 * Compressed members per file type, and the blocks packages were split into (by first package:
 * the next build keeps the key of a block of the same package objects); a build reads
 * `previous` and fills `next`.
 */
export type RepodataMemberCaches = Partial<Record<RepodataType, GzipMemberCache>> & {
  blocks?: ItemBlocksByFirst<PackageFragments>;
};

const DOCUMENTS = [
  ["primary", primaryXmlEnvelope, (p: PackageFragments) => p.primary],
  ["filelists", filelistsXmlEnvelope, (p: PackageFragments) => p.filelists],
  ["other", otherXmlEnvelope, (p: PackageFragments) => p.other],
] as const;

/**
 * Packages per block, on average. Each gzip member starts without a dictionary, and repodata
 * XML compresses ~11:1, so small blocks cost size: at 10,000 small packages, 32 → +18.5 % over
 * one member per file, 64 → +8.9 %, 128 → +4.9 %, while rebuilding after one more package took
 * about the same (23.4, 21.8, 21.2 ms: hashing dominates; bench/yum/block-size.ts). 64 keeps
 * the block recompressed per change small for packages with long file lists.
 */
const BLOCK_SIZE = 64;

/** primary, filelists and other, in that order; byte-identical to joining the fragments whole. */
export function buildRepodataFiles(
  packages: readonly PackageFragments[],
  timestamp: number,
  caches: { previous?: RepodataMemberCaches; next?: RepodataMemberCaches } = {},
): RepodataFile[] {
  // The three documents list the same packages: one split, one key per block, for all three.
  const nextBlocks: ItemBlocksByFirst<PackageFragments> | undefined = caches.next ? new Map() : undefined;
  if (caches.next) caches.next.blocks = nextBlocks;
  const blocks = splitIntoBlocks(
    packages,
    { name: (p) => p.name, id: (p) => p.id, hash: (p) => p.nameHash ?? nameHash(p.name) },
    BLOCK_SIZE,
    { previous: caches.previous?.blocks, next: nextBlocks },
  );
  return DOCUMENTS.map(([type, envelope, fragment]) => {
    const [head, tail] = envelope(packages.length);
    const next: GzipMemberCache = new Map();
    if (caches.next) caches.next[type] = next;
    const document = gzipBlocks(
      [
        head,
        ...blocks.map((block) => ({ key: block.key, text: () => block.items.map(fragment).join("") })),
        tail,
      ],
      { previous: caches.previous?.[type], next },
    );
    return repodataFile(type, document, timestamp);
  });
}
