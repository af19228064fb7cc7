// rpm's version segment comparison (rpmvercmp), for ordering versions the way rpm and dnf do.

const isDigit = (c: string) => c >= "0" && c <= "9";
const isAlpha = (c: string) => (c >= "a" && c <= "z") || (c >= "A" && c <= "Z");
const isSeparator = (c: string) => c !== "" && !isDigit(c) && !isAlpha(c) && c !== "~" && c !== "^";

/**
 * -1, 0 or 1. A port of rpm 4.18's rpmvercmp: alternating numeric and alphabetic segments,
 * numbers beat letters, `~` sorts before everything (pre-releases), `^` after the base version
 * but before anything else (snapshots).
 */
export function rpmVersionCompare(a: string, b: string): -1 | 0 | 1 {
  if (a === b) return 0;
  let i = 0;
  let j = 0;
  const at = (s: string, k: number) => (k < s.length ? s[k]! : "");
  while (i < a.length || j < b.length) {
    while (isSeparator(at(a, i))) i++;
    while (isSeparator(at(b, j))) j++;
    const ca = at(a, i);
    const cb = at(b, j);
    if (ca === "~" || cb === "~") {
      if (ca !== "~") return 1;
      if (cb !== "~") return -1;
      i++;
      j++;
      continue;
    }
    if (ca === "^" || cb === "^") {
      if (ca === "") return -1;
      if (cb === "") return 1;
      if (ca !== "^") return 1;
      if (cb !== "^") return -1;
      i++;
      j++;
      continue;
    }
    if (ca === "" || cb === "") break;
    const numeric = isDigit(ca);
    const inSegment = numeric ? isDigit : isAlpha;
    let endA = i;
    while (inSegment(at(a, endA))) endA++;
    let endB = j;
    while (inSegment(at(b, endB))) endB++;
    // The other side has a segment of the other kind: numbers are newer than letters.
    if (endB === j) return numeric ? 1 : -1;
    let segA = a.slice(i, endA);
    let segB = b.slice(j, endB);
    if (numeric) {
      segA = segA.replace(/^0+/, "");
      segB = segB.replace(/^0+/, "");
      if (segA.length !== segB.length) return segA.length > segB.length ? 1 : -1;
    }
    if (segA !== segB) return segA > segB ? 1 : -1;
    i = endA;
    j = endB;
  }
  if (i >= a.length && j >= b.length) return 0;
  return i >= a.length ? -1 : 1;
}
