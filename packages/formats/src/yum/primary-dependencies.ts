// Turns a package's dependencies into primary.xml entries with createrepo_c's filtering rules.

import { dependencyComparison, type RpmDependency } from "../rpm/rpm-dependency.ts";
import type { RpmDependencies, RpmPackageMetadata } from "../rpm/rpm-package-metadata.ts";
import { RpmSense } from "../rpm/rpm-tags.ts";
import { rpmVersionCompare } from "../rpm/rpm-version-compare.ts";
import { isPrimaryFile } from "./primary-files.ts";

export interface PrimaryDependency {
  name: string;
  flags: string | null;
  epoch: string | null;
  version: string | null;
  release: string | null;
  pre: boolean;
}

export type PrimaryDependencies = Record<keyof RpmDependencies, PrimaryDependency[]>;

export interface Evr {
  epoch: string | null;
  version: string | null;
  release: string | null;
}

/**
 * Splits "[epoch:]version[-release]" like createrepo_c's cr_str_to_evr: the epoch defaults to
 * "0", the release starts at the first "-" after it. Returns null for a non-numeric epoch,
 * which createrepo_c skips the dependency for.
 */
export function splitEvr(evr: string): Evr | null {
  if (evr === "") return { epoch: null, version: null, release: null };
  let epoch: string | null = null;
  let rest = evr;
  const colon = evr.indexOf(":");
  if (colon !== -1) {
    const prefix = evr.slice(0, colon);
    // strtol accepts leading whitespace and a sign; an empty prefix is "no epoch".
    if (prefix !== "" && !/^[ \t\n\v\f\r]*[+-]?[0-9]+$/.test(prefix)) return null;
    if (prefix !== "") epoch = prefix;
    rest = evr.slice(colon + 1);
  }
  const dash = rest.indexOf("-");
  const version = dash === -1 ? rest : rest.slice(0, dash);
  const release = dash === -1 ? "" : rest.slice(dash + 1);
  return { epoch: epoch ?? "0", version, release: release === "" ? null : release };
}

// createrepo_c's pre rule: unlike rpm, it leaves out pretrans and posttrans.
const CREATEREPO_PRE = RpmSense.PREREQ | RpmSense.SCRIPT_PRE | RpmSense.SCRIPT_POST;

/**
 * The dependency lists of primary.xml, computed as createrepo_c 0.17+ does (built with legacy
 * weak dependencies, as Fedora and Debian ship it): requires lose rpmlib(), the package's own
 * primary files, exact matches of its own provides and repeats of the previous entry with
 * the same name; only the highest libc.so.6 requirement stays, moved to the end; requires
 * marked MISSINGOK are old-style Recommends.
 */
export function primaryDependencies(pkg: RpmPackageMetadata): PrimaryDependencies {
  const convert = (list: RpmDependency[]) =>
    list.flatMap((dependency) => {
      const entry = toEntry(dependency, false);
      return entry ? [entry] : [];
    });
  const provides = convert(pkg.provides);
  const provided = new Set(pkg.provides.filter((d) => splitEvr(d.evr)).map(nameFlagsVersion));
  const files = new Set(pkg.files.map((file) => file.path));

  const requires: PrimaryDependency[] = [];
  const missingOk: PrimaryDependency[] = [];
  const previous = new Map<string, { flags: string | null; evr: string; pre: boolean }>();
  let highestLibc: PrimaryDependency | null = null;
  for (const dependency of pkg.requires) {
    const { name, evr } = dependency;
    if (name.startsWith("rpmlib(")) continue;
    if (name.startsWith("/") && files.has(name) && isPrimaryFile(name)) continue;
    if (provided.has(nameFlagsVersion(dependency))) continue;
    const pre = (dependency.flags & CREATEREPO_PRE) !== 0;
    const flags = dependencyComparison(dependency.flags);
    const last = previous.get(name);
    if (last && last.flags === flags && last.evr === evr && last.pre === pre) continue;
    const entry = toEntry(dependency, pre);
    if (!entry) continue;
    if (dependency.flags & RpmSense.MISSINGOK) {
      missingOk.push({ ...entry, pre: false });
      continue;
    }
    if (name.startsWith("libc.so.6")) {
      if (!highestLibc || compareLibcNames(highestLibc.name, name) === 2) highestLibc = entry;
      continue;
    }
    requires.push(entry);
    previous.set(name, { flags, evr, pre });
  }
  if (highestLibc) requires.push(highestLibc);

  return {
    provides,
    requires,
    conflicts: convert(pkg.conflicts),
    obsoletes: convert(pkg.obsoletes),
    suggests: convert(pkg.suggests),
    enhances: convert(pkg.enhances),
    recommends: [...missingOk, ...convert(pkg.recommends)],
    supplements: convert(pkg.supplements),
  };
}

function nameFlagsVersion(dependency: RpmDependency): string {
  return `${dependency.name}${dependency.comparison ?? ""}${dependency.evr}`;
}

function toEntry(dependency: RpmDependency, pre: boolean): PrimaryDependency | null {
  const evr = splitEvr(dependency.evr);
  if (!evr) return null;
  return { name: dependency.name, flags: dependency.comparison, ...evr, pre };
}

/**
 * createrepo_c's cr_compare_dependency for "libc.so.6(GLIBC_2.34)(64bit)"-style names:
 * 0 same, 1 first bigger, 2 second bigger; compares the first parenthesised version.
 */
function compareLibcNames(first: string, second: string): 0 | 1 | 2 | -1 {
  const open1 = first.indexOf("(");
  const open2 = second.indexOf("(");
  if (open1 === -1 && open2 === -1) return 0;
  if (open1 === -1) return 2;
  if (open2 === -1) return 1;
  const close1 = first.indexOf(")", open1);
  const close2 = second.indexOf(")", open2);
  if (close1 === -1 && close2 === -1) return -1;
  if (close1 === -1) return 2;
  if (close2 === -1) return 1;
  let v1 = open1 + 1;
  let v2 = open2 + 1;
  if (v1 === close1 && v2 === close2) return 0;
  if (v1 === close1) return 2;
  if (v2 === close2) return 1;
  const isDigit = (s: string, k: number) => k < s.length && s[k]! >= "0" && s[k]! <= "9";
  while (v1 < first.length && !isDigit(first, v1)) v1++;
  while (v2 < second.length && !isDigit(second, v2)) v2++;
  if (v1 > close1 && v2 > close2) return 0;
  if (v1 > close1) return 2;
  if (v2 > close2) return 1;
  const result = rpmVersionCompare(first.slice(v1, close1), second.slice(v2, close2));
  return result === -1 ? 2 : result;
}
