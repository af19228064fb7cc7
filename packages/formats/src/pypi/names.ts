// Python package names and distribution file names, as the packaging specifications define
// them: PEP 503 normalization (what the simple index and `pip` compare), the wheel file name
// (PEP 427 / the binary distribution format) and the source distribution's (PEP 625). Pure.

/** Why a file name or a project name is refused. */
export class PypiNameError extends Error {
  readonly code = "PYPI_INVALID_NAME";
}

/** PEP 508's valid project names: letters, digits, `.`, `_`, `-`, starting and ending alphanumeric. */
const PROJECT_NAME = /^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$/i;

export function isValidProjectName(name: string): boolean {
  return name.length <= 200 && PROJECT_NAME.test(name);
}

/** PEP 503: runs of `-`, `_` and `.` become one `-`, all lower case. */
export function normalizeProjectName(name: string): string {
  return name.replace(/[-_.]+/g, "-").toLowerCase();
}

export interface DistributionFile {
  kind: "wheel" | "sdist";
  /** The project's name as the file spells it (wheels escape `-` as `_`). */
  name: string;
  version: string;
  /** Wheels: the python, abi and platform tags. */
  tags?: { python: string; abi: string; platform: string; build?: string };
}

/**
 * Reads a distribution's file name: `{name}-{version}(-{build})?-{python}-{abi}-{platform}.whl`
 * or `{name}-{version}.tar.gz` (`.zip` for old sdists). PypiNameError for anything else.
 */
export function parseDistributionFilename(filename: string): DistributionFile {
  if (filename.endsWith(".whl")) {
    const parts = filename.slice(0, -".whl".length).split("-");
    if (parts.length !== 5 && parts.length !== 6)
      throw new PypiNameError(
        `${filename} is not a wheel file name: name-version(-build)-python-abi-platform.whl`,
      );
    const [name, version, ...rest] = parts as [string, string, ...string[]];
    const [build, python, abi, platform] = rest.length === 4 ? rest : [undefined, ...rest];
    if (!isValidProjectName(name) || !version || !python || !abi || !platform)
      throw new PypiNameError(`${filename} is not a wheel file name`);
    if (build !== undefined && !/^\d/.test(build))
      throw new PypiNameError(`${filename}: a wheel's build tag starts with a digit`);
    return {
      kind: "wheel",
      name,
      version,
      tags: { python, abi, platform, ...(build !== undefined ? { build } : {}) },
    };
  }
  const extension = [".tar.gz", ".zip"].find((e) => filename.endsWith(e));
  if (!extension)
    throw new PypiNameError(`${filename} is neither a wheel (.whl) nor a source distribution (.tar.gz)`);
  const stem = filename.slice(0, -extension.length);
  // The version is what follows the last "-": names escape theirs (PEP 625), versions have none.
  const dash = stem.lastIndexOf("-");
  const name = stem.slice(0, dash);
  const version = stem.slice(dash + 1);
  if (dash <= 0 || !isValidProjectName(name) || version === "")
    throw new PypiNameError(`${filename} is not a source distribution file name: name-version.tar.gz`);
  return { kind: "sdist", name, version };
}
