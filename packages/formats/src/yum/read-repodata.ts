// Reads an existing YUM/DNF repository's metadata, for importing it: repomd.xml (which names and
// checksums primary.xml) and primary.xml itself, streamed — a distribution's primary is hundreds
// of megabytes uncompressed. The XML is parsed by `sax` (decision 029), strictly: a document that
// is not well-formed is refused, never guessed at.
import sax from "sax";

export class YumReadError extends Error {
  override readonly name = "YumReadError";
}

/** The checksum types createrepo_c writes (`sha` is old yum's name for sha1). */
export const repodataChecksumTypes = ["md5", "sha", "sha1", "sha224", "sha256", "sha384", "sha512"] as const;
export type RepodataChecksumType = (typeof repodataChecksumTypes)[number];

export interface RepodataChecksum {
  type: RepodataChecksumType;
  /** Lowercase hex. */
  value: string;
}

export interface RepomdData {
  type: string;
  /** Relative to the repository root (or to xml:base when given). */
  href: string;
  base?: string;
  checksum: RepodataChecksum;
  openChecksum?: RepodataChecksum;
  size?: number;
  openSize?: number;
}

export interface ReadRepomd {
  revision?: string;
  data: RepomdData[];
}

const hexLength: Record<RepodataChecksumType, number> = {
  md5: 32,
  sha: 40,
  sha1: 40,
  sha224: 56,
  sha256: 64,
  sha384: 96,
  sha512: 128,
};

function checksum(type: string | undefined, value: string, where: string): RepodataChecksum {
  const lowerType = (type ?? "").toLowerCase();
  if (!(repodataChecksumTypes as readonly string[]).includes(lowerType))
    throw new YumReadError(`${where}: unknown checksum type ${JSON.stringify(type ?? "")}`);
  const checked = lowerType as RepodataChecksumType;
  const hex = value.trim().toLowerCase();
  if (hex.length !== hexLength[checked] || !/^[0-9a-f]+$/.test(hex))
    throw new YumReadError(`${where}: ${JSON.stringify(value.trim())} is not a ${checked} checksum`);
  return { type: checked, value: hex };
}

function size(value: string | undefined, where: string): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(Number(value)))
    throw new YumReadError(`${where}: ${JSON.stringify(value)} is not a size`);
  return Number(value);
}

/** No "..", no absolute path, no scheme: an href inside the repository. */
function checkedHref(href: string | undefined, where: string): string {
  if (
    !href ||
    href.startsWith("/") ||
    /^[a-z][a-z0-9+.-]*:/i.test(href) ||
    /[\\?#]/.test(href) ||
    href.split("/").some((segment) => segment === "" || segment === "." || segment === "..")
  )
    throw new YumReadError(`${where}: location ${JSON.stringify(href ?? "")} is not a relative path`);
  return href;
}

type Attributes = Record<string, string>;

function strictParser(onError: (error: Error) => void): sax.SAXParser {
  const parser = sax.parser(true, { trim: false, normalize: false, xmlns: false, position: true });
  parser.onerror = (error) => {
    onError(new YumReadError(error.message.split("\n")[0] ?? "malformed XML"));
  };
  return parser;
}

function attributes(node: sax.Tag | sax.QualifiedTag): Attributes {
  const out: Attributes = {};
  for (const [name, value] of Object.entries(node.attributes))
    out[name] = typeof value === "string" ? value : value.value;
  return out;
}

/** Parses repomd.xml. Throws YumReadError. */
export function readRepomd(xml: string): ReadRepomd {
  let failure: Error | undefined;
  const parser = strictParser((error) => {
    failure ??= error;
  });
  const stack: string[] = [];
  const result: ReadRepomd = { data: [] };
  let current: { type: string; attrs: Record<string, Attributes>; text: Record<string, string> } | undefined;
  let text = "";
  parser.onopentag = (node) => {
    stack.push(node.name);
    text = "";
    if (stack.length === 1 && node.name !== "repomd")
      failure ??= new YumReadError(`the root element is <${node.name}>, not <repomd>`);
    if (stack.length === 2 && node.name === "data") {
      current = { type: attributes(node).type ?? "", attrs: {}, text: {} };
    } else if (stack.length === 3 && current) {
      current.attrs[node.name] = attributes(node);
    }
  };
  parser.ontext = (value) => {
    text += value;
  };
  parser.oncdata = (value) => {
    text += value;
  };
  parser.onclosetag = (name) => {
    if (stack.length === 2 && name === "revision") result.revision = text.trim();
    if (stack.length === 3 && current) current.text[name] = text;
    if (stack.length === 2 && name === "data" && current) {
      const where = `repomd.xml <data type="${current.type}">`;
      if (current.type === "") failure ??= new YumReadError("repomd.xml: a <data> element has no type");
      else {
        try {
          const location = current.attrs.location;
          const entry: RepomdData = {
            type: current.type,
            href: checkedHref(location?.href, where),
            checksum: checksum(
              current.attrs.checksum?.type,
              current.text.checksum ?? "",
              `${where} checksum`,
            ),
          };
          if (location?.["xml:base"]) entry.base = location["xml:base"];
          if (current.text["open-checksum"] !== undefined)
            entry.openChecksum = checksum(
              current.attrs["open-checksum"]?.type,
              current.text["open-checksum"],
              `${where} open-checksum`,
            );
          const fileSize = size(current.text.size, `${where} size`);
          if (fileSize !== undefined) entry.size = fileSize;
          const openSize = size(current.text["open-size"], `${where} open-size`);
          if (openSize !== undefined) entry.openSize = openSize;
          result.data.push(entry);
        } catch (error) {
          failure ??= error as Error;
        }
      }
      current = undefined;
    }
    stack.pop();
    text = "";
  };
  let sawRoot = false;
  const openTag = parser.onopentag;
  parser.onopentag = (node) => {
    sawRoot = true;
    openTag(node);
  };
  try {
    parser.write(xml).close();
  } catch (error) {
    failure ??= error instanceof YumReadError ? error : new YumReadError(String(error));
  }
  if (failure) throw failure;
  if (!sawRoot || stack.length !== 0) throw new YumReadError("not a repomd.xml document");
  return result;
}

/** What an import needs from one <package> of primary.xml. */
export interface PrimaryPackage {
  name: string;
  arch: string;
  epoch: string;
  version: string;
  release: string;
  checksum: RepodataChecksum;
  /** Relative to the repository root, or to `base` when the package names one. */
  href: string;
  base?: string;
  /** The package file's size in bytes (<size package="…">). */
  size?: number;
}

interface PackageDraft {
  attrs: Record<string, Attributes>;
  text: Record<string, string>;
}

function primaryPackage(draft: PackageDraft, index: number): PrimaryPackage {
  const name = draft.text.name?.trim();
  const where = `package ${name ? JSON.stringify(name) : `#${index}`}`;
  if (!name) throw new YumReadError(`${where} in primary.xml has no <name>`);
  const version = draft.attrs.version;
  if (!version?.ver) throw new YumReadError(`${where} in primary.xml has no <version ver="…">`);
  const location = draft.attrs.location;
  const pkg: PrimaryPackage = {
    name,
    arch: draft.text.arch?.trim() ?? "",
    epoch: version.epoch ?? "0",
    version: version.ver,
    release: version.rel ?? "",
    checksum: checksum(draft.attrs.checksum?.type, draft.text.checksum ?? "", `${where} checksum`),
    href: checkedHref(location?.href, where),
  };
  if (location?.["xml:base"]) pkg.base = location["xml:base"];
  const packageSize = size(draft.attrs.size?.package, `${where} size`);
  if (packageSize !== undefined) pkg.size = packageSize;
  return pkg;
}

/**
 * Every <package> of primary.xml as the (decompressed) bytes arrive. Only the elements directly
 * inside <package> are read; <format> (files, dependencies) is skipped without being kept.
 */
export async function* readPrimaryPackages(bytes: AsyncIterable<Uint8Array>): AsyncGenerator<PrimaryPackage> {
  let failure: Error | undefined;
  const parser = strictParser((error) => {
    failure ??= error;
  });
  const decoder = new TextDecoder("utf-8");
  const depth = { value: 0 };
  const ready: PrimaryPackage[] = [];
  let draft: PackageDraft | undefined;
  let field: string | undefined;
  let text = "";
  let count = 0;
  let sawRoot = false;
  parser.onopentag = (node) => {
    depth.value++;
    if (depth.value === 1) {
      sawRoot = true;
      if (node.name !== "metadata")
        failure ??= new YumReadError(`the root element is <${node.name}>, not <metadata>`);
    } else if (depth.value === 2 && node.name === "package") {
      draft = { attrs: {}, text: {} };
    } else if (depth.value === 3 && draft) {
      draft.attrs[node.name] = attributes(node);
      field = node.name;
      text = "";
    }
  };
  parser.ontext = (value) => {
    if (field !== undefined && depth.value === 3) text += value;
  };
  parser.oncdata = (value) => {
    if (field !== undefined && depth.value === 3) text += value;
  };
  parser.onclosetag = (name) => {
    if (depth.value === 3 && draft && field !== undefined) {
      draft.text[field] = text;
      field = undefined;
    } else if (depth.value === 2 && name === "package" && draft) {
      count++;
      try {
        ready.push(primaryPackage(draft, count));
      } catch (error) {
        failure ??= error as Error;
      }
      draft = undefined;
    }
    depth.value--;
  };
  for await (const chunk of bytes) {
    parser.write(decoder.decode(chunk, { stream: true }));
    if (failure) throw failure;
    yield* ready.splice(0);
  }
  try {
    parser.write(decoder.decode()).close();
  } catch (error) {
    failure ??= error instanceof YumReadError ? error : new YumReadError(String(error));
  }
  if (failure) throw failure;
  if (!sawRoot || depth.value !== 0)
    throw new YumReadError("primary.xml ends before its last element is closed");
  yield* ready.splice(0);
}
