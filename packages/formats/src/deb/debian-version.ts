// Debian version strings: policy validation and dpkg's ordering, used to pick the newest package.

export interface DebianVersion {
  epoch: number;
  upstream: string;
  /** "" when the version has no "-revision" part; dpkg orders that like "0". */
  revision: string;
}

/**
 * Splits leniently (like dpkg does before comparing): the epoch is what precedes the first ":"
 * when it is all digits, the revision what follows the last "-".
 */
export function parseDebianVersion(version: string): DebianVersion {
  let rest = version.trim();
  let epoch = 0;
  const colon = rest.indexOf(":");
  if (colon !== -1 && /^\d+$/.test(rest.slice(0, colon))) {
    epoch = Number(rest.slice(0, colon));
    rest = rest.slice(colon + 1);
  }
  const hyphen = rest.lastIndexOf("-");
  if (hyphen === -1) return { epoch, upstream: rest, revision: "" };
  return { epoch, upstream: rest.slice(0, hyphen), revision: rest.slice(hyphen + 1) };
}

/** Why `version` breaks Debian policy §5.6.12, or undefined when it is valid. */
export function debianVersionProblem(version: string): string | undefined {
  if (version === "") return "version is empty";
  if (/\s/.test(version)) return "version contains whitespace";
  const colon = version.indexOf(":");
  let rest = version;
  if (colon !== -1) {
    const epoch = version.slice(0, colon);
    if (!/^\d+$/.test(epoch)) return "epoch must be a number";
    if (Number(epoch) > 2_147_483_647) return "epoch is too large";
    rest = version.slice(colon + 1);
  }
  const hyphen = rest.lastIndexOf("-");
  const upstream = hyphen === -1 ? rest : rest.slice(0, hyphen);
  if (hyphen !== -1) {
    const revision = rest.slice(hyphen + 1);
    if (revision === "") return "revision after '-' is empty";
    if (!/^[A-Za-z0-9+.~]+$/.test(revision)) return "revision may contain only letters, digits and + . ~";
  }
  if (upstream === "") return "upstream version is empty";
  if (!/^[0-9]/.test(upstream)) return "upstream version must start with a digit";
  if (!/^[A-Za-z0-9.+~-]+$/.test(upstream))
    return "upstream version may contain only letters, digits and . + - ~";
  return undefined;
}

export function isValidDebianVersion(version: string): boolean {
  return debianVersionProblem(version) === undefined;
}

const isDigit = (code: number) => code >= 0x30 && code <= 0x39;
const isLetter = (code: number) => (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);

/** dpkg's order(): "~" before the end of the string, letters before everything else. */
function characterWeight(code: number | undefined): number {
  if (code === undefined || isDigit(code)) return 0;
  if (isLetter(code)) return code;
  if (code === 0x7e) return -1;
  return code + 256;
}

/** dpkg's verrevcmp(): alternating non-digit runs (by weight) and digit runs (numerically). */
function compareVersionPart(left: string, right: string): number {
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    while (
      (i < left.length && !isDigit(left.charCodeAt(i))) ||
      (j < right.length && !isDigit(right.charCodeAt(j)))
    ) {
      const leftWeight = characterWeight(i < left.length ? left.charCodeAt(i) : undefined);
      const rightWeight = characterWeight(j < right.length ? right.charCodeAt(j) : undefined);
      if (leftWeight !== rightWeight) return leftWeight - rightWeight;
      i++;
      j++;
    }
    while (left.charCodeAt(i) === 0x30) i++;
    while (right.charCodeAt(j) === 0x30) j++;
    let firstDifference = 0;
    while (isDigit(left.charCodeAt(i)) && isDigit(right.charCodeAt(j))) {
      if (firstDifference === 0) firstDifference = left.charCodeAt(i) - right.charCodeAt(j);
      i++;
      j++;
    }
    if (isDigit(left.charCodeAt(i))) return 1;
    if (isDigit(right.charCodeAt(j))) return -1;
    if (firstDifference !== 0) return firstDifference;
  }
  return 0;
}

/** Negative when `left` is older, positive when newer, 0 when dpkg considers them equal. */
export function compareDebianVersions(left: string, right: string): number {
  const a = parseDebianVersion(left);
  const b = parseDebianVersion(right);
  if (a.epoch !== b.epoch) return a.epoch < b.epoch ? -1 : 1;
  const upstream = compareVersionPart(a.upstream, b.upstream);
  if (upstream !== 0) return Math.sign(upstream);
  return Math.sign(compareVersionPart(a.revision, b.revision));
}

/**
 * A part written so that two parts compareVersionPart calls equal are the same string: digit runs
 * without leading zeros, and a digit run at the end ("1." → "1.0", "" → "0"), since a missing run
 * compares like 0. Most parts are written so already and come back as they are.
 */
function versionPartKey(part: string): string {
  let canonical = true;
  for (let i = 0; i < part.length; i++) {
    // A digit run starting with 0 and going on ("007"): leading zeros.
    if (
      part.charCodeAt(i) === 0x30 &&
      (i === 0 || !isDigit(part.charCodeAt(i - 1))) &&
      isDigit(part.charCodeAt(i + 1))
    ) {
      canonical = false;
      break;
    }
  }
  if (canonical && part.length > 0 && isDigit(part.charCodeAt(part.length - 1))) return part;
  let key = canonical ? part : part.replace(/(^|[^0-9])0+(?=[0-9])/g, "$1");
  if (key.length === 0 || !isDigit(key.charCodeAt(key.length - 1))) key += "0";
  return key;
}

/**
 * A string equal for two versions exactly when compareDebianVersions calls them equal
 * ("1.0" and "1.0-0", "1.01" and "1.1", "0:1.0" and "1.0"): one package's identity in an index.
 */
export function debianVersionKey(version: string): string {
  const { epoch, upstream, revision } = parseDebianVersion(version);
  return `${epoch}:${versionPartKey(upstream)}-${versionPartKey(revision)}`;
}
