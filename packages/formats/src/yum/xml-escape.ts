// Escapes text for repodata XML byte-for-byte as libxml2 serializes createrepo_c's documents.

// Not allowed anywhere in XML 1.0, not even as character references.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const ILLEGAL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|\p{Cs}/gu;
const TEXT_SPECIAL = /[&<>\r]/g;
const ATTRIBUTE_SPECIAL = /[&<>"\n\r\t]|[\u0080-\u{10FFFF}]/gu;

const TEXT_ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#13;" };
const ATTRIBUTE_ENTITIES: Record<string, string> = {
  ...TEXT_ENTITIES,
  '"': "&quot;",
  "\n": "&#10;",
  "\t": "&#9;",
};

/**
 * createrepo_c refuses a whole package when a string holds a control character; we drop the
 * characters instead, so one odd changelog line does not keep a package out of the repository.
 */
export function stripIllegalXmlCharacters(value: string): string {
  return value.replace(ILLEGAL, "");
}

/** Element content: UTF-8 stays as is, only & < > and CR are escaped. */
export function escapeXmlText(value: string): string {
  return stripIllegalXmlCharacters(value).replace(TEXT_SPECIAL, (c) => TEXT_ENTITIES[c]!);
}

/**
 * Attribute values: libxml2, serializing a node without a document encoding, writes every
 * non-ASCII character as a hexadecimal reference (&#xDC;), and whitespace other than space too.
 */
export function escapeXmlAttribute(value: string): string {
  return stripIllegalXmlCharacters(value).replace(
    ATTRIBUTE_SPECIAL,
    (c) => ATTRIBUTE_ENTITIES[c] ?? `&#x${c.codePointAt(0)!.toString(16).toUpperCase()};`,
  );
}
