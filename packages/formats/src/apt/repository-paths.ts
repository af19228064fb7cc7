// Where files live in an APT repository: pool paths for packages, index paths and by-hash names.
import { parseDebianVersion } from "../deb/debian-version.ts";
import { AptIndexError } from "./apt-index-error.ts";
import { checkedHash, checkedRelativePath, checkedToken } from "./index-values.ts";

const packageName = /^[a-z0-9][a-z0-9+.-]+$/;

function checkedPackageName(what: string, name: string): string {
  if (!packageName.test(name))
    throw new AptIndexError("APT_BAD_PATH", `${what} ${JSON.stringify(name)} is not a Debian package name`);
  return name;
}

/** Debian's pool bucket: "libc" for libc6, "h" for hello. */
export function poolPrefix(sourceName: string): string {
  checkedPackageName("source", sourceName);
  return sourceName.startsWith("lib") && sourceName.length > 3
    ? sourceName.slice(0, 4)
    : sourceName.slice(0, 1);
}

/** hello_2.10-3_amd64.deb: the epoch is left out of file names, as in the Debian archive. */
export function debFileName(name: string, version: string, architecture: string): string {
  const { upstream, revision } = parseDebianVersion(version);
  checkedToken("Architecture", architecture, /^[a-z0-9][a-z0-9-]*$/);
  const fileVersion = revision === "" ? upstream : `${upstream}-${revision}`;
  return checkedRelativePath(
    "file name",
    `${checkedPackageName("package", name)}_${fileVersion}_${architecture}.deb`,
  );
}

/** pool/<component>/<prefix>/<source>/<filename>, the value of a stanza's Filename field. */
export function poolPath(options: { component: string; source: string; filename: string }): string {
  const component = checkedToken("component", options.component);
  if (options.filename.includes("/"))
    throw new AptIndexError("APT_BAD_PATH", "filename must not contain '/'");
  const path = `pool/${component}/${poolPrefix(options.source)}/${options.source}/${options.filename}`;
  return checkedRelativePath("pool path", path);
}

/** main/binary-amd64/Packages, relative to dists/<suite>/. */
export function packagesIndexPath(component: string, architecture: string): string {
  checkedToken("component", component);
  checkedToken("Architecture", architecture, /^[a-z0-9][a-z0-9-]*$/);
  return `${component}/binary-${architecture}/Packages`;
}

/** main/binary-amd64/by-hash/SHA256/<hex> for main/binary-amd64/Packages.gz. */
export function byHashPath(indexPath: string, algorithm: "SHA256" | "SHA512", hex: string): string {
  checkedRelativePath("index path", indexPath);
  const slash = indexPath.lastIndexOf("/");
  const directory = slash === -1 ? "" : `${indexPath.slice(0, slash)}/`;
  return `${directory}by-hash/${algorithm}/${checkedHash(algorithm, hex)}`;
}
