// Core metadata of a Python distribution (the METADATA of a wheel, the PKG-INFO of an sdist):
// email-header fields, one per line, continuation lines indented, then an optional body (the
// description). Pure; limits keep a hostile file small.

export class PypiMetadataError extends Error {
  readonly code = "PYPI_INVALID_METADATA";
}

export interface CoreMetadata {
  metadataVersion: string;
  name: string;
  version: string;
  summary?: string;
  requiresPython?: string;
  /** Every field, by its lower-cased name, in order (multiple-use fields have several values). */
  fields: Map<string, string[]>;
  description?: string;
}

/** Metadata larger than this is refused (PyPI's own limit on a METADATA file is far above real ones). */
export const MAX_METADATA_BYTES = 1024 * 1024;

export function parseCoreMetadata(bytes: Uint8Array): CoreMetadata {
  if (bytes.byteLength > MAX_METADATA_BYTES)
    throw new PypiMetadataError(`The metadata is larger than ${MAX_METADATA_BYTES} bytes`);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new PypiMetadataError("The metadata is not UTF-8");
  }
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const fields = new Map<string, string[]>();
  let last: { key: string; index: number } | undefined;
  let i = 0;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === "") {
      i++;
      break;
    }
    if (/^[ \t]/.test(line)) {
      if (!last) throw new PypiMetadataError("The metadata starts with a continuation line");
      const values = fields.get(last.key)!;
      values[last.index] = `${values[last.index]}\n${line.replace(/^ {1,8}|^\t/, "")}`;
      continue;
    }
    const colon = line.indexOf(":");
    if (colon <= 0) throw new PypiMetadataError(`Not a metadata field: ${line.slice(0, 80)}`);
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    const values = fields.get(key) ?? [];
    values.push(value);
    fields.set(key, values);
    last = { key, index: values.length - 1 };
  }
  const one = (key: string) => fields.get(key)?.[0];
  const metadataVersion = one("metadata-version");
  const name = one("name");
  const version = one("version");
  if (!metadataVersion || !name || !version)
    throw new PypiMetadataError("The metadata needs Metadata-Version, Name and Version");
  const body = lines.slice(i).join("\n").trim();
  const description = one("description") ?? (body === "" ? undefined : body);
  return {
    metadataVersion,
    name,
    version,
    fields,
    ...(one("summary") ? { summary: one("summary") } : {}),
    ...(one("requires-python") ? { requiresPython: one("requires-python") } : {}),
    ...(description ? { description } : {}),
  };
}
