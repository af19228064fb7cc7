// Checks a binary package's control fields against Debian policy before they reach an index,
// where a bad name or version would break every client of the repository.
import { type ControlField, getControlField } from "./control-paragraph.ts";
import { DebFormatError } from "./deb-format-error.ts";
import { debianVersionProblem } from "./debian-version.ts";

export interface BinaryControlSummary {
  name: string;
  version: string;
  architecture: string;
  /** The source package name (without a "(version)" suffix); the package name when absent. */
  source: string;
  /** Installed-Size in KiB, when the package declares it. */
  installedSizeKiB: number | undefined;
}

export const requiredControlFields = [
  "Package",
  "Version",
  "Architecture",
  "Maintainer",
  "Description",
] as const;

const packageNamePattern = /^[a-z0-9][a-z0-9+.-]+$/;
// A concrete architecture (amd64, arm64, all, musl-linux-arm64), never a wildcard such as "any".
const architecturePattern = /^[a-z0-9][a-z0-9-]{0,63}$/;

function badField(field: string, message: string): DebFormatError {
  return new DebFormatError("DEB_BAD_FIELD", `${field}: ${message}`, { field });
}

export function isValidPackageName(name: string): boolean {
  return packageNamePattern.test(name);
}

export function summarizeBinaryControl(fields: readonly ControlField[]): BinaryControlSummary {
  for (const field of requiredControlFields) {
    const value = getControlField(fields, field);
    if (value === undefined || value.trim() === "") {
      throw new DebFormatError("DEB_MISSING_FIELD", `control file has no ${field} field`, { field });
    }
  }
  const name = getControlField(fields, "Package")!;
  const version = getControlField(fields, "Version")!;
  const architecture = getControlField(fields, "Architecture")!;
  const description = getControlField(fields, "Description")!;

  if (!isValidPackageName(name)) {
    throw badField(
      "Package",
      `${JSON.stringify(name)} must be lowercase letters, digits, + - . (at least 2, starting with a letter or digit)`,
    );
  }
  const versionProblem = debianVersionProblem(version);
  if (versionProblem !== undefined)
    throw badField("Version", `${JSON.stringify(version)}: ${versionProblem}`);
  if (!architecturePattern.test(architecture) || /(^|-)any(-|$)/.test(architecture)) {
    throw badField("Architecture", `${JSON.stringify(architecture)} is not a single concrete architecture`);
  }
  if (description.startsWith("\n")) throw badField("Description", "the first line (synopsis) is empty");
  for (const singleLine of ["Package", "Version", "Architecture", "Maintainer", "Source", "Installed-Size"]) {
    if (getControlField(fields, singleLine)?.includes("\n"))
      throw badField(singleLine, "must be a single line");
  }

  let installedSizeKiB: number | undefined;
  const installedSize = getControlField(fields, "Installed-Size");
  if (installedSize !== undefined) {
    if (!/^\d{1,15}$/.test(installedSize))
      throw badField("Installed-Size", `${JSON.stringify(installedSize)} is not a number of KiB`);
    installedSizeKiB = Number(installedSize);
  }

  let source = name;
  const sourceField = getControlField(fields, "Source");
  if (sourceField !== undefined) {
    const match = /^([a-z0-9][a-z0-9+.-]+)(?:\s+\(([^()\s]+)\))?$/.exec(sourceField);
    if (!match) throw badField("Source", `${JSON.stringify(sourceField)} is not "name" or "name (version)"`);
    source = match[1]!;
  }
  return { name, version, architecture, source, installedSizeKiB };
}
