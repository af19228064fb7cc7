// Assembles one suite of a project's APT repository from stored stanzas — never by re-reading
// packages: Packages, Packages.gz and Packages.xz per component and architecture, Release with
// SHA256 and SHA512 lists, InRelease and Release.gpg signed by every active key.
import {
  type PackagesIndexSplit,
  type ReleaseFileEntry,
  renderRelease,
  splitPackagesIndex,
} from "@packyard/formats/apt/index.ts";
import {
  blockKeyDigest,
  digestGzipMembers,
  type GzipMemberCache,
  gzipMembers,
  tagMember,
} from "@packyard/formats/compress/gzip-members.ts";
import {
  type KeyedChunk,
  type RemoteHasher,
  ResumableDigests,
} from "@packyard/formats/compress/resumable-digests.ts";
import { type SigningKey, signCleartext, signDetachedArmored } from "@packyard/formats/openpgp/index.ts";
import type { DigestThread } from "../../repositories/digest-thread.ts";
import type { RestoredBlock, RestoredBlocks, RestoredIndex } from "./restore-blocks.ts";
import { type IndexedPackage, SuiteIndexes, type SuiteIndexView } from "./suite-indexes.ts";
import { compressStoredLater, type XzBlockCache, type XzEncoder, xzDocument } from "./xz-blocks.ts";

export type SuitePackage = IndexedPackage;

/**
 * The last split of each kept index into blocks and the index's version then, by the index's
 * array (SuiteIndexes changes it in place between builds): the next build re-splits from the
 * first position changed since, keeping the blocks before it (at 50,000 packages ~1,500) and
 * their keys. Gone with the array when the index is dropped.
 */
const lastSplits = new WeakMap<readonly IndexedPackage[], LastBuild>();

/** Index files up to this size are held for reuse however memory goes (an empty index's are ~30 bytes). */
const SMALL_INDEX_BYTES = 64 * 1024;

type Held<T extends object> = { deref(): T | undefined };

function hold<T extends Uint8Array>(bytes: T): Held<T> {
  return bytes.byteLength <= SMALL_INDEX_BYTES ? { deref: () => bytes } : new WeakRef(bytes);
}

/** What the last build of an index made, by the index's array (lastSplits). */
interface LastBuild {
  split: PackagesIndexSplit;
  /** The index's version when it was split. */
  version: number;
  /**
   * Its files, once the build made them: reused as they are while the version stays. Their bytes
   * are held weakly beyond SMALL_INDEX_BYTES (they are the generation's files; the blocks they are
   * made of are what the memory budget keeps): once collected, the index is built again.
   */
  made?: {
    plain: ReleaseFileEntry;
    gz: ReleaseFileEntry & { bytes: Held<Uint8Array> };
    xz: (ReleaseFileEntry & { xz: Held<Buffer> }) | null;
    /** Whether it was built with an xz encoder. */
    withXz: boolean;
  };
}

/**
 * Compressed blocks of an index from its previous build, by block text. Packages.gz is a series
 * of gzip members, one per block: a publish that adds one package recompresses one block.
 */
export type GzipBlockCache = GzipMemberCache;

/**
 * What a build of one index keeps for the next: the hashes' midstates of its Packages,
 * Packages.gz and Packages.xz (the next build re-hashes each from its first changed block only)
 * and its entries in order.
 */
export interface IndexDigests {
  /** Packages: SHA256 here, SHA512 in the digest thread when there is one (`remote`). */
  open: ResumableDigests;
  remote?: RemoteHasher;
  gzip: ResumableDigests;
  xz: ResumableDigests;
}

/**
 * The uncompressed index's digests: SHA512 in the digest thread once it is up; until then (it
 * boots in ~60 ms, started here by the first build that could use it) both here (decision 078).
 */
function openDigests(thread: DigestThread | undefined): Pick<IndexDigests, "open" | "remote"> {
  if (thread?.running) return { open: new ResumableDigests(["sha256"]), remote: thread.hasher(["sha512"]) };
  thread?.warm();
  return { open: new ResumableDigests(["sha256", "sha512"]), remote: undefined };
}

export function newIndexDigests(thread?: DigestThread): IndexDigests {
  return {
    ...openDigests(thread),
    gzip: new ResumableDigests(["sha256", "sha512"]),
    xz: new ResumableDigests(["sha256", "sha512"]),
  };
}

/**
 * SHA256 and SHA512 of an index's Packages; `meanwhile` runs (once) while the digest thread
 * hashes. A failed thread costs its midstates: this build hashes here, from the start.
 */
async function digestOpen(
  digests: IndexDigests,
  chunks: readonly KeyedChunk[],
  meanwhile: () => void,
): Promise<[string, string]> {
  let ran = false;
  const once = () => {
    if (!ran) meanwhile();
    ran = true;
  };
  if (digests.remote) {
    try {
      const [sha256, sha512] = await digests.open.digestWith(digests.remote, chunks, { meanwhile: once });
      return [sha256!, sha512!];
    } catch {
      Object.assign(digests, openDigests(undefined));
    }
  }
  once();
  const [sha256, sha512] = digests.open.digest(chunks);
  return [sha256!, sha512!];
}

/** Roughly the memory IndexDigests keep. */
export function indexDigestsBytes(digests: IndexDigests): number {
  return digests.open.bytes() + digests.gzip.bytes() + digests.xz.bytes();
}

export interface BuiltSuite {
  /** Path relative to dists/<suite>/ → bytes. Includes Release, InRelease and Release.gpg. */
  files: Map<string, Uint8Array>;
  /** sha256 and sha512 of every file, computed once for Release and reused by the store. */
  digests: Map<string, { sha256: string; sha512: string }>;
  /** The uncompressed Packages files: listed in Release, not stored, served from their .gz. */
  listed: ReleaseFileEntry[];
  architectures: string[];
  components: string[];
  /**
   * Compresses the Packages.xz blocks this build stored, for the next build (decision 049): to be
   * started once the publish is over, so that it takes no core from it.
   */
  compressLater: (() => Promise<void>)[];
}

export async function buildSuite(options: {
  origin: string;
  label: string;
  suite: string;
  /** The suite's name by default. */
  codename?: string;
  /** The signing time: Release's Date and the signatures' creation time. */
  date: Date;
  /** Release's Valid-Until: apt refuses the repository after it, so it is re-signed before. */
  validUntil?: Date;
  /**
   * The suite's packages, grouped and ordered (kept between builds); or `packages`, newest
   * release first: for a name/version/architecture listed twice, the first one wins.
   */
  indexes?: SuiteIndexView;
  packages?: SuitePackage[];
  signers: SigningKey[];
  /** Compressed blocks from the previous build of this suite, per index path; updated in place. */
  gzipCache?: Map<string, GzipBlockCache>;
  /** Compresses Packages.xz's new blocks; null: no Packages.xz (no xz on this machine). */
  xz: XzEncoder | null;
  /**
   * Compressed xz blocks from the previous build of this suite, per index path; updated in place.
   */
  xzCache?: Map<string, XzBlockCache>;
  /**
   * With xzCache: changed text up to this many bytes per index is stored in Packages.xz and
   * compressed after the build, into xzCache (decision 049). 0 (the default): compressed now.
   */
  xzStoredUpTo?: number;
  /** The served generation's blocks by text, for indexes with no cached blocks (restore-blocks.ts). */
  restored?: RestoredBlocks;
  /** Hash midstates from the previous build of this suite, per index path; updated in place. */
  digests?: Map<string, IndexDigests>;
  /** Where SHA512 of the uncompressed indexes is computed, beside the main thread's work. */
  thread?: DigestThread;
  /** Where a Packages.xz that could not be made is reported (console.warn by default). */
  warn?: (message: string) => void;
  /**
   * Handed each new Packages.gz and Packages.xz as soon as it is final, before Release is
   * signed: the caller may store it meanwhile (it is in `files` too).
   */
  storeEarly?: (path: string, bytes: Uint8Array, digests: { sha256: string; sha512: string }) => void;
}): Promise<BuiltSuite> {
  const indexes: SuiteIndexView = options.indexes ?? SuiteIndexes.from(options.packages ?? []);
  const components = indexes.components;
  const architectures = indexes.architectures;

  const encoder = new TextEncoder();
  const files = new Map<string, Uint8Array>();
  const listed: ReleaseFileEntry[] = [];
  // Release lists each Packages (hashed while its blocks are compressed) before its .gz.
  const described: ReleaseFileEntry[] = [];
  // Packages.xz: the same blocks, compressed (only those not cached) while the next index's
  // gzip members are made; one xz process per index that changed.
  const xzFiles: Promise<(ReleaseFileEntry & { xz: Buffer }) | null>[] = [];
  /** Records of what each index's build made, for the next build (lastSplits). */
  const making: Promise<void>[] = [];
  const compressLater: (() => Promise<void>)[] = [];
  for (const component of components) {
    for (const architecture of architectures) {
      const base = `${component}/binary-${architecture}/Packages`;
      // Midstates are used only with the blocks they hashed: a cache dropped (or never made)
      // drops them too.
      let digests = options.digests?.get(base);
      if (!digests) {
        digests = newIndexDigests(options.thread);
        options.digests?.set(base, digests);
      } else if (!digests.remote && options.thread?.running) {
        // Made before the thread was up: SHA512 moves to it (this build hashes the index once
        // from its start, as after a dropped cache).
        Object.assign(digests, openDigests(options.thread));
      }
      const entries = indexes.index(component, architecture);
      const version = indexes.version?.(component, architecture);
      const last = lastSplits.get(entries);
      // An index no change touched since its last build (another architecture's package was
      // added): its files are that build's, nothing is compressed or hashed again.
      const made = last?.made;
      const madeGz = made?.gz.bytes.deref();
      const madeXz = made?.xz?.xz.deref();
      if (
        made &&
        madeGz &&
        last.version === version &&
        made.withXz === Boolean(options.xz) &&
        options.gzipCache?.has(base) &&
        (!options.xz || (made.xz && madeXz && options.xzCache?.has(base)))
      ) {
        const { bytes: _gz, ...gzEntry } = made.gz;
        listed.push(made.plain);
        described.push(made.plain, gzEntry);
        files.set(gzEntry.path, madeGz);
        if (made.xz && madeXz) xzFiles.push(Promise.resolve({ ...made.xz, xz: madeXz }));
        continue;
      }
      const split = splitPackagesIndex(
        entries,
        32,
        last && {
          split: last.split,
          changedFrom:
            version === undefined ? 0 : (indexes.changedFrom?.(component, architecture, last.version) ?? 0),
        },
      );
      if (version !== undefined) lastSplits.set(entries, { split, version });
      const blocks = split.blocks;
      if (!options.gzipCache?.has(base)) {
        Object.assign(digests, openDigests(options.thread));
        digests.gzip = new ResumableDigests(["sha256", "sha512"]);
      }
      if (!options.xzCache?.has(base)) digests.xz = new ResumableDigests(["sha256", "sha512"]);
      let previousGzip = options.gzipCache?.get(base);
      let previousXz = options.xzCache?.get(base);
      const restored = options.restored?.get(base);
      // The served files themselves, when this build's blocks are exactly theirs.
      let served: RestoredIndex["served"];
      if (restored && (!previousGzip || !previousXz)) {
        // No blocks kept from a previous build: those of the served files, matched by key (by
        // text for members of an older file, which are tagged now).
        const gzip: GzipBlockCache = new Map();
        const xz: XzBlockCache = new Map();
        const keyDigests: string[] = [];
        for (const block of blocks) {
          const keyDigest = blockKeyDigest(block.key);
          keyDigests.push(keyDigest);
          let found: RestoredBlock | undefined = restored.byKey.get(keyDigest);
          if (!found && restored.byText.size > 0) {
            const older = restored.byText.get(block.text());
            if (older) found = { gzip: tagMember(older.gzip, block.key), xz: older.xz };
          }
          if (!found) continue;
          gzip.set(block.key, found.gzip);
          if (found.xz) xz.set(block.key, found.xz);
        }
        if (
          restored.served &&
          !previousGzip &&
          !previousXz &&
          Boolean(options.xz) === Boolean(restored.served.xz) &&
          keyDigests.length === restored.served.keyDigests.length &&
          keyDigests.every((digest, i) => digest === restored.served!.keyDigests[i])
        )
          served = restored.served;
        previousGzip ??= gzip;
        previousXz ??= xz;
      }
      if (served) {
        // Nothing to compress or hash: the same blocks in the same order are the same bytes,
        // whose digests the generation recorded. (The midstates start with the next build.)
        options.gzipCache?.set(base, previousGzip!);
        options.xzCache?.set(base, previousXz!);
        // Blocks an earlier process stored in the served file: compressed now, for the next build.
        const stored = blocks.filter((block) => previousXz!.get(block.key)?.stored);
        if (stored.length > 0 && options.xzCache && options.xz && options.xzStoredUpTo)
          compressLater.push(() =>
            compressStoredLater(
              options.xzCache!,
              base,
              stored.map((block) => ({ key: block.key, text: Buffer.from(block.text(), "utf8") })),
              options.xz!,
              options.warn ?? console.warn,
            ),
          );
        const plain = { path: base, ...served.plain };
        listed.push(plain);
        described.push(plain, {
          path: `${base}.gz`,
          size: served.gzip.size,
          sha256: served.gzip.sha256,
          sha512: served.gzip.sha512,
        });
        files.set(`${base}.gz`, served.gzip.bytes);
        const xzFile = served.xz;
        if (xzFile)
          xzFiles.push(
            Promise.resolve({
              path: `${base}.xz`,
              size: xzFile.size,
              sha256: xzFile.sha256,
              sha512: xzFile.sha512,
              xz: xzFile.bytes,
            }),
          );
        continue;
      }
      if (options.xz) {
        const next: XzBlockCache = new Map();
        const previous = previousXz;
        options.xzCache?.set(base, next);
        const xzDigests = digests.xz;
        xzFiles.push(
          xzDocument(blocks, {
            encoder: options.xz,
            previous,
            next,
            digests: xzDigests,
            storeUpTo: options.xzCache ? options.xzStoredUpTo : 0,
          }).then(
            ({ xz, sha256, sha512, stored }) => {
              if (stored.length > 0 && options.xzCache && options.xz)
                compressLater.push(() =>
                  compressStoredLater(
                    options.xzCache!,
                    base,
                    stored,
                    options.xz!,
                    options.warn ?? console.warn,
                  ),
                );
              const made = { path: `${base}.xz`, size: xz.length, sha256: sha256!, sha512: sha512!, xz };
              options.storeEarly?.(made.path, xz, made);
              return made;
            },
            (error: unknown) => {
              // Packages.gz still serves every client: a failed xz costs the .xz, not the publish.
              options.xzCache?.delete(base);
              // Its midstates name blocks this build did not hash: start afresh next time.
              digests.xz = new ResumableDigests(["sha256", "sha512"]);
              (options.warn ?? console.warn)(`${base}.xz left out: ${String(error)}`);
              return null;
            },
          ),
        );
      }
      const next: GzipBlockCache = new Map();
      const document = gzipMembers(blocks, {
        previous: previousGzip,
        next,
        tagged: true,
        // The digest thread reads new blocks' text where it is.
        shared: Boolean(digests.remote),
      });
      options.gzipCache?.set(base, next);
      let gz: string[] = [];
      const [sha256, sha512] = await digestOpen(digests, document.open, () => {
        gz = digestGzipMembers(digests.gzip, document.gzip, document.members);
        // Final now: written while the digest thread finishes Packages' SHA512.
        options.storeEarly?.(`${base}.gz`, document.gzip, { sha256: gz[0]!, sha512: gz[1]! });
      });
      const plain = { path: base, size: document.size, sha256, sha512 };
      const gzEntry = { path: `${base}.gz`, size: document.gzip.length, sha256: gz[0]!, sha512: gz[1]! };
      listed.push(plain);
      described.push(plain, gzEntry);
      files.set(`${base}.gz`, document.gzip);
      const xzMade = options.xz ? xzFiles.at(-1) : undefined;
      const record = lastSplits.get(entries);
      if (record && record.version === version) {
        // Recorded once its Packages.xz is made too (a failed one is not reused).
        const withXz = Boolean(options.xz);
        making.push(
          (xzMade ?? Promise.resolve(null)).then((xz) => {
            record.made = {
              plain,
              gz: { ...gzEntry, bytes: hold(document.gzip) },
              xz: xz && { ...xz, xz: hold(xz.xz) },
              withXz,
            };
          }),
        );
      }
    }
  }
  await Promise.all(making);
  for (const made of await Promise.all(xzFiles)) {
    if (!made) continue;
    const { xz, ...entry } = made;
    described.push(entry);
    files.set(entry.path, xz);
  }
  const release = renderRelease({
    origin: options.origin,
    label: options.label,
    suite: options.suite,
    codename: options.codename ?? options.suite,
    date: options.date,
    validUntil: options.validUntil,
    architectures,
    components,
    description: `${options.label} ${options.suite}`,
    files: described,
  });
  const digests = new Map(described.map((d) => [d.path, { sha256: d.sha256, sha512: d.sha512 }]));
  const releaseBytes = encoder.encode(release);
  const [inRelease, releaseGpg] = await Promise.all([
    signCleartext(release, options.signers, { date: options.date }),
    signDetachedArmored(releaseBytes, options.signers, { date: options.date }),
  ]);
  files.set("Release", releaseBytes);
  files.set("InRelease", encoder.encode(inRelease));
  files.set("Release.gpg", encoder.encode(releaseGpg));
  return {
    files,
    digests,
    listed,
    architectures: [...architectures],
    components: [...components],
    compressLater,
  };
}
