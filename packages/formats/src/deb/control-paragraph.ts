// Parses and renders one deb822 paragraph (a binary package's control file), keeping field order
// and continuation lines so the text can go into a Packages index unchanged.
import { DebFormatError } from "./deb-format-error.ts";

/**
 * A field name and its value. Multi-line values keep their continuation lines, each starting with
 * a space or tab, joined by "\n" (a value that starts with "\n" has an empty first line).
 */
export type ControlField = readonly [name: string, value: string];

// deb822: US-ASCII without controls, space and colon, not starting with "#" or "-".
const fieldLine = /^([!"$-,.-9;-~][!-9;-~]*):(.*)$/;

function badControl(message: string): DebFormatError {
  return new DebFormatError("DEB_BAD_CONTROL", `control file: ${message}`);
}

export function parseControlParagraph(text: string): ControlField[] {
  const lines = text
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .split("\n");
  const fields: Array<[string, string]> = [];
  const seen = new Set<string>();
  let paragraphEnded = false;
  for (const [index, line] of lines.entries()) {
    const lineNumber = index + 1;
    if (/^[ \t]*$/.test(line)) {
      if (fields.length > 0) paragraphEnded = true;
      continue;
    }
    if (line.startsWith("#")) continue;
    if (paragraphEnded) throw badControl(`line ${lineNumber}: more than one paragraph`);
    if (line.startsWith(" ") || line.startsWith("\t")) {
      const current = fields.at(-1);
      if (current === undefined) throw badControl(`line ${lineNumber}: continuation line before any field`);
      current[1] += `\n${line.trimEnd()}`;
      continue;
    }
    const match = fieldLine.exec(line);
    if (!match)
      throw badControl(
        `line ${lineNumber}: expected "Field: value", got ${JSON.stringify(line.slice(0, 80))}`,
      );
    const name = match[1]!;
    const key = name.toLowerCase();
    if (seen.has(key)) throw badControl(`field ${name} appears twice`);
    seen.add(key);
    fields.push([name, match[2]!.trim()]);
  }
  if (fields.length === 0) throw badControl("no fields");
  return fields;
}

/** Looks a field up the way dpkg does: names are case-insensitive. */
export function getControlField(fields: readonly ControlField[], name: string): string | undefined {
  const key = name.toLowerCase();
  return fields.find(([fieldName]) => fieldName.toLowerCase() === key)?.[1];
}

export function renderControlField([name, value]: ControlField): string {
  if (value === "") return `${name}:\n`;
  return value.startsWith("\n") ? `${name}:${value}\n` : `${name}: ${value}\n`;
}

/** One line per field (plus continuation lines), ending with "\n" and no blank line. */
export function renderControlParagraph(fields: readonly ControlField[]): string {
  return fields.map(renderControlField).join("");
}
