// Renders one Packages stanza: the package's control paragraph verbatim, then where the file is
// and its hashes (apt refuses stanzas without SHA256).
import { type ControlField, renderControlField } from "../deb/control-paragraph.ts";
import { AptIndexError } from "./apt-index-error.ts";
import { checkedHash, checkedRelativePath, checkedSize } from "./index-values.ts";

export interface PoolFileFacts {
  /** Path relative to the repository root, e.g. pool/main/h/hello/hello_1.0-1_amd64.deb. */
  filename: string;
  size: number;
  md5: string;
  sha1: string;
  sha256: string;
  /** Optional for apt, listed when known. */
  sha512?: string;
}

/** Fields the repository computes; copies in an uploaded control file are dropped, not duplicated. */
export const repositoryOwnedFields = ["Filename", "Size", "MD5sum", "SHA1", "SHA256", "SHA512"] as const;

const ownedKeys = new Set(repositoryOwnedFields.map((field) => field.toLowerCase()));
const fieldName = /^[!"$-,.-9;-~][!-9;-~]*$/;

/** A field apt can read back: a valid name, no blank line inside (that would end the stanza). */
function checkedField([name, value]: ControlField): ControlField {
  if (!fieldName.test(name))
    throw new AptIndexError("APT_BAD_FIELD", `invalid field name ${JSON.stringify(name)}`);
  const [first = "", ...continuation] = value.split("\n");
  if (/[\r]/.test(value) || first !== first.trim()) {
    throw new AptIndexError(
      "APT_BAD_FIELD",
      `${name}: the first line has stray whitespace or a carriage return`,
    );
  }
  for (const line of continuation) {
    if (!/^[ \t]/.test(line) || line.trim() === "") {
      throw new AptIndexError(
        "APT_BAD_FIELD",
        `${name}: continuation lines must start with a space and not be blank`,
      );
    }
  }
  return [name, value];
}

export function renderPackagesStanza(controlFields: readonly ControlField[], file: PoolFileFacts): string {
  const fields = controlFields.filter(([name]) => !ownedKeys.has(name.toLowerCase())).map(checkedField);
  const appended: ControlField[] = [
    ["Filename", checkedRelativePath("Filename", file.filename)],
    ["Size", String(checkedSize("Size", file.size))],
    ["MD5sum", checkedHash("MD5sum", file.md5)],
    ["SHA1", checkedHash("SHA1", file.sha1)],
    ["SHA256", checkedHash("SHA256", file.sha256)],
  ];
  if (file.sha512 !== undefined) appended.push(["SHA512", checkedHash("SHA512", file.sha512)]);
  return [...fields, ...appended].map(renderControlField).join("");
}
