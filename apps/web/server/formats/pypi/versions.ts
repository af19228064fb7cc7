// Python versions as PEP 440 writes them: the normalised form (what `packaging.version.Version`
// prints, what PyPI stores), so `1.0-RC1`, `1.0rc1` and a wheel's `1.0_rc1` are one version.
// Used to compare a file's name, its metadata and the upload form, and as the Packyard release
// version. Pure.

// PEP 440's appendix, "Parsing version strings with regular expressions".
const VERSION =
  /^\s*v?(?:(?:(?<epoch>[0-9]+)!)?(?<release>[0-9]+(?:\.[0-9]+)*)(?<pre>[-_.]?(?<preL>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?<preN>[0-9]+)?)?(?<post>(?:-(?<postN1>[0-9]+))|(?:[-_.]?(?<postL>post|rev|r)[-_.]?(?<postN2>[0-9]+)?))?(?<dev>[-_.]?(?<devL>dev)[-_.]?(?<devN>[0-9]+)?)?)(?:\+(?<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$/i;

const PRE: Record<string, string> = {
  alpha: "a",
  a: "a",
  beta: "b",
  b: "b",
  c: "rc",
  pre: "rc",
  preview: "rc",
  rc: "rc",
};

/** A number without its leading zeros ("007" is 7), kept as text: versions may exceed 2^53. */
const int = (digits: string | undefined) => (digits ?? "0").replace(/^0+(?=\d)/, "");

/** The normalised form of a PEP 440 version, or undefined when it is not one. */
export function normalizePythonVersion(version: string): string | undefined {
  const m = VERSION.exec(version);
  if (!m?.groups) return undefined;
  const g = m.groups;
  let out = "";
  if (g.epoch !== undefined && int(g.epoch) !== "0") out += `${int(g.epoch)}!`;
  out += g.release!.split(".").map(int).join(".");
  if (g.preL) out += `${PRE[g.preL.toLowerCase()]}${int(g.preN)}`;
  if (g.post) out += `.post${int(g.postN1 ?? g.postN2)}`;
  if (g.dev) out += `.dev${int(g.devN)}`;
  if (g.local)
    out += `+${g.local
      .toLowerCase()
      .split(/[-_.]/)
      .map((part) => (/^\d+$/.test(part) ? int(part) : part))
      .join(".")}`;
  return out;
}
