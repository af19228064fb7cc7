// The YUM repository (or group) an entitlement token with a version range reads: the generation
// being served, with the packages outside the range taken out of primary.xml, filelists.xml and
// other.xml, and a repomd.xml of its own signed with the project's keys (repomd.xml.asc). dnf then
// picks the newest version the customer is entitled to, instead of one it would be refused.
//
// Made from a served generation's repodata on the first request of a range, kept in memory by
// generation and range (as filtered-apt.ts). The requester's repomd.xml and its signature come
// from one generation: the YUM entry pins (formats/yum/entry-pins.ts) say which.
import { gunzipSync } from "node:zlib";
import { type VersionRange, versionInRange } from "@packyard/contract/entitlements.ts";
import { signDetachedArmored } from "@packyard/formats/openpgp/index.ts";
import { rpmVersionCompare } from "@packyard/formats/rpm/rpm-version-compare.ts";
import { filelistsXmlEnvelope } from "@packyard/formats/yum/filelists-xml.ts";
import { otherXmlEnvelope } from "@packyard/formats/yum/other-xml.ts";
import { primaryXmlEnvelope } from "@packyard/formats/yum/primary-xml.ts";
import { readRepomd } from "@packyard/formats/yum/read-repodata.ts";
import { buildRepodataFile } from "@packyard/formats/yum/repodata-file.ts";
import { type RepodataType, renderRepomd } from "@packyard/formats/yum/repomd-xml.ts";
import type { BlobStore } from "../platform/storage/blob-store.ts";
import type { ProjectRow } from "../projects/storage.ts";
import type { Services } from "../services.ts";

/** A repository's repodata for one range: repomd.xml, its signature, the three files by path. */
export interface FilteredRepodata {
  files: Map<string, Buffer>;
}

const KEPT = 64;
const kept = new WeakMap<object, Map<string, Promise<FilteredRepodata>>>();

async function readAll(store: BlobStore, sha256: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await store.open(sha256)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const PACKAGE = /<package\b[\s\S]*?<\/package>\n?/g;

/** The package fragments of a primary.xml whose version (ver) is in the range, and their pkgids. */
export function filterPrimary(
  xml: string,
  range: VersionRange,
): { fragments: string[]; pkgids: Set<string> } {
  const fragments: string[] = [];
  const pkgids = new Set<string>();
  for (const [fragment] of xml.matchAll(PACKAGE)) {
    const version = /<version\b[^>]*\bver="([^"]*)"/.exec(fragment)?.[1];
    const pkgid = /<checksum\b[^>]*pkgid="YES"[^>]*>([^<]+)<\/checksum>/.exec(fragment)?.[1];
    if (version === undefined || pkgid === undefined) continue;
    if (!versionInRange(range, unescapeXml(version), rpmVersionCompare)) continue;
    fragments.push(fragment);
    pkgids.add(pkgid);
  }
  return { fragments, pkgids };
}

/** The package fragments of a filelists.xml or other.xml whose pkgid is kept. */
export function filterByPkgid(xml: string, pkgids: ReadonlySet<string>): string[] {
  const fragments: string[] = [];
  for (const [fragment] of xml.matchAll(PACKAGE)) {
    const pkgid = /^<package\b[^>]*\bpkgid="([^"]+)"/.exec(fragment)?.[1];
    if (pkgid !== undefined && pkgids.has(pkgid)) fragments.push(fragment);
  }
  return fragments;
}

function unescapeXml(value: string): string {
  return value
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&apos;", "'")
    .replaceAll("&amp;", "&");
}

const envelopes: Record<RepodataType, (count: number) => [string, string]> = {
  primary: primaryXmlEnvelope,
  filelists: filelistsXmlEnvelope,
  other: otherXmlEnvelope,
};

/**
 * The repodata `range` may read, made from the generation whose repomd.xml is `repomd` (a file
 * of the served generations).
 */
export function filteredYumRepodata(
  services: Pick<Services, "repos" | "keys">,
  project: Pick<ProjectRow, "id" | "name">,
  repomd: { sha256: string; generationId: string },
  range: VersionRange,
): Promise<FilteredRepodata> {
  let variants = kept.get(services);
  if (!variants) {
    variants = new Map();
    kept.set(services, variants);
  }
  const key = `${repomd.generationId}\u0000${repomd.sha256}\u0000${JSON.stringify(range)}`;
  let variant = variants.get(key);
  if (!variant) {
    if (variants.size >= KEPT) variants.delete(variants.keys().next().value as string);
    variant = build(services, project, repomd, range);
    variants.set(key, variant);
    const all = variants;
    variant.catch(() => all.delete(key));
  }
  return variant;
}

async function build(
  services: Pick<Services, "repos" | "keys">,
  project: Pick<ProjectRow, "id" | "name">,
  repomd: { sha256: string; generationId: string },
  range: VersionRange,
): Promise<FilteredRepodata> {
  const { repos } = services;
  const text = (await readAll(repos.store, repomd.sha256)).toString("utf8");
  const served = readRepomd(text);
  const xmlOf = async (type: RepodataType) => {
    const data = served.data.find((d) => d.type === type);
    if (!data) throw new Error(`the served repomd.xml lists no ${type}`);
    const stored = await repos.fileInGeneration(repomd.generationId, data.href);
    if (!stored) throw new Error(`${data.href} of the served generation is not stored`);
    // The served entry's time, so the filtered one says the same.
    const timestamp = new RegExp(`<data type="${type}">[\\s\\S]*?<timestamp>(\\d+)</timestamp>`).exec(
      text,
    )?.[1];
    return {
      xml: gunzipSync(await readAll(repos.store, stored.sha256)).toString("utf8"),
      timestamp: timestamp === undefined ? undefined : Number(timestamp),
    };
  };
  const primary = await xmlOf("primary");
  const { fragments, pkgids } = filterPrimary(primary.xml, range);
  const documents: [RepodataType, string[], number][] = [["primary", fragments, primary.timestamp ?? 0]];
  for (const type of ["filelists", "other"] as const) {
    const { xml, timestamp } = await xmlOf(type);
    documents.push([type, filterByPkgid(xml, pkgids), timestamp ?? 0]);
  }
  const files = new Map<string, Buffer>();
  const entries = documents.map(([type, list, timestamp]) => {
    const [head, tail] = envelopes[type](list.length);
    const file = buildRepodataFile(type, head + list.join("") + tail, timestamp);
    files.set(file.path, Buffer.from(file.bytes));
    return file.entry;
  });
  const repomdXml = renderRepomd({ revision: served.revision ?? Date.now(), entries });
  const { signers } = await services.keys.active(project);
  files.set("repodata/repomd.xml", Buffer.from(repomdXml));
  files.set(
    "repodata/repomd.xml.asc",
    Buffer.from(await signDetachedArmored(Buffer.from(repomdXml), signers)),
  );
  return { files };
}
