// An upload through the index (twine's legacy `file_upload` form, docs/pypi.md): the form is
// checked before a byte of the file is read, the file is staged as any release file is
// (releases/use-cases.ts: plan, audit `file.uploaded`, webhooks, the release created with its
// first file), then, before anything is recorded, its digests are compared with the form's and
// its core metadata read (a wheel's METADATA through ranged reads, an sdist's PKG-INFO from the
// stream) and compared with its file name and the form. The `pypi_file` row is written in the
// upload's transaction.

import { createHash } from "node:crypto";
import { blake2b } from "@noble/hashes/blake2.js";
import { apiErrorCodeOr, releaseVersion } from "@packyard/contract";
import type { CoreMetadata } from "@packyard/formats/pypi/metadata.ts";
import {
  isValidProjectName,
  normalizeProjectName,
  parseDistributionFilename,
} from "@packyard/formats/pypi/names.ts";
import { readSdistMetadata } from "@packyard/formats/pypi/sdist.ts";
import { readWheelMetadata } from "@packyard/formats/pypi/wheel.ts";
import { DomainError } from "../../platform/core/errors.ts";
import type { PersonCaller } from "../../platform/core/use-case.ts";
import type { StagedBlob } from "../../platform/storage/blob-store.ts";
import type { UploadAttachment } from "../../releases/files.ts";
import { type UploadUseCaseDeps, uploadReleaseFile } from "../../releases/use-cases.ts";
import { insertPythonFile } from "./storage.ts";
import { normalizePythonVersion } from "./versions.ts";

/** A refusal of the upload: 400, with the reader's code when the API knows it. */
function refused(message: string, code = "VALIDATION_FAILED"): DomainError {
  return new DomainError(apiErrorCodeOr(code, "VALIDATION_FAILED"), message);
}

/** The readers' named errors (PYPI_INVALID_NAME, PYPI_INVALID_METADATA) as refusals. */
function asRefusal(error: unknown): unknown {
  const code = (error as { code?: unknown })?.code;
  if (error instanceof Error && typeof code === "string" && code.startsWith("PYPI_"))
    return refused(error.message, code);
  return error;
}

/** What the form says of the file, checked against its name before the file is read. */
export interface CheckedForm {
  kind: "wheel" | "sdist";
  /** The distribution's normalised name (PEP 503). */
  name: string;
  /** The normalised version (PEP 440): the Packyard release's version. */
  version: string;
  digests: { md5?: string; sha256?: string; blake2_256?: string };
}

const DIGESTS = [
  ["md5_digest", "md5", 32],
  ["sha256_digest", "sha256", 64],
  ["blake2_256_digest", "blake2_256", 64],
] as const;

/**
 * The form of a `file_upload` and the file's name: the action, the name and version (valid,
 * and the file's own), the file type, the digests (at least one, hexadecimal). Refusals say why.
 */
export function checkUploadForm(fields: Record<string, string>, filename: string): CheckedForm {
  const action = fields[":action"];
  if (action !== "file_upload")
    throw refused(
      action === undefined
        ? "This is a package index upload URL: send the file_upload form (twine upload --repository-url)"
        : `Only the file_upload action is supported, not ${action}`,
    );
  if (fields.protocol_version !== undefined && fields.protocol_version !== "1")
    throw refused(`Upload protocol version ${fields.protocol_version} is not supported; use 1`);
  const formName = fields.name?.trim();
  const formVersion = fields.version?.trim();
  if (!formName || !formVersion) throw refused("The upload form needs the name and version fields");
  if (!isValidProjectName(formName))
    throw refused(`${formName} is not a valid project name`, "PYPI_INVALID_NAME");
  const version = normalizePythonVersion(formVersion);
  if (!version) throw refused(`${formVersion} is not a valid version (PEP 440)`, "INVALID_VERSION");
  let file: ReturnType<typeof parseDistributionFilename>;
  try {
    file = parseDistributionFilename(filename);
  } catch (error) {
    throw asRefusal(error);
  }
  if (file.kind === "sdist" && !filename.endsWith(".tar.gz"))
    throw refused(
      `${filename}: source distributions are accepted as .tar.gz only (PEP 625)`,
      "INVALID_FILENAME",
    );
  const filetype = file.kind === "wheel" ? "bdist_wheel" : "sdist";
  if (fields.filetype !== undefined && fields.filetype !== filetype)
    throw refused(`${filename} is a ${filetype}, not a ${fields.filetype}`);
  const name = normalizeProjectName(formName);
  if (normalizeProjectName(file.name) !== name)
    throw refused(`The file ${filename} is not of ${formName}: its name says ${file.name}`);
  if (normalizePythonVersion(file.version) !== version)
    throw refused(`The file ${filename} is not version ${formVersion}: its name says ${file.version}`);
  if (version.includes("!"))
    throw refused(
      `${formVersion} has an epoch (N!): Packyard release versions cannot hold one, so it cannot be uploaded`,
      "INVALID_VERSION",
    );
  const valid = releaseVersion.safeParse(version);
  if (!valid.success)
    throw refused(
      `${version} cannot be a Packyard release version: ${valid.error.issues[0]?.message}`,
      "INVALID_VERSION",
    );
  const digests: CheckedForm["digests"] = {};
  for (const [field, key, length] of DIGESTS) {
    const value = fields[field]?.trim().toLowerCase();
    if (!value) continue;
    if (value.length !== length || !/^[0-9a-f]+$/.test(value))
      throw refused(`${field} is not a hexadecimal digest of ${length} digits`);
    digests[key] = value;
  }
  if (!digests.md5 && !digests.sha256 && !digests.blake2_256)
    throw refused("The upload form needs a digest: sha256_digest, md5_digest or blake2_256_digest");
  return { kind: file.kind, name, version, digests };
}

/** The body, hashed with md5 and BLAKE2b-256 as it passes when the form gave those digests. */
function hashedWhileRead(body: AsyncIterable<Uint8Array>, digests: CheckedForm["digests"]) {
  const md5 = digests.md5 ? createHash("md5") : undefined;
  const blake2 = digests.blake2_256 ? blake2b.create({ dkLen: 32 }) : undefined;
  const result: { md5?: string; blake2_256?: string } = {};
  async function* hashed() {
    for await (const chunk of body) {
      md5?.update(chunk);
      blake2?.update(chunk);
      yield chunk;
    }
    if (md5) result.md5 = md5.digest("hex");
    if (blake2) result.blake2_256 = Buffer.from(blake2.digest()).toString("hex");
  }
  return { body: hashed(), result };
}

/** Bytes an sdist may decompress to before its PKG-INFO is found. */
function sdistDecompressionLimit(size: number): number {
  return Math.min(Math.max(size * 100, 256 * 1024 * 1024), 8 * 1024 * 1024 * 1024);
}

interface Ingested {
  metadata: CoreMetadata;
  /** A wheel's METADATA exactly as its bytes are, for PEP 658; undefined for an sdist. */
  wheelMetadata?: { text: string; sha256: string };
}

function metadataOf(form: CheckedForm, filename: string, computed: { md5?: string; blake2_256?: string }) {
  return async (staged: Pick<StagedBlob, "read" | "size" | "sha256">): Promise<Ingested> => {
    const mismatch = (field: string) =>
      refused(`${field} does not match the uploaded file ${filename}`, "PYPI_DIGEST_MISMATCH");
    if (form.digests.sha256 && form.digests.sha256 !== staged.sha256) throw mismatch("sha256_digest");
    if (form.digests.md5 && form.digests.md5 !== computed.md5) throw mismatch("md5_digest");
    if (form.digests.blake2_256 && form.digests.blake2_256 !== computed.blake2_256)
      throw mismatch("blake2_256_digest");
    let read: { bytes: Uint8Array; metadata: CoreMetadata };
    try {
      read =
        form.kind === "wheel"
          ? await readWheelMetadata({
              size: staged.size,
              // The reader's end is exclusive, the staged blob's inclusive.
              read: (start, end) => (end > start ? staged.read({ start, end: end - 1 }) : emptyStream()),
            })
          : await readSdistMetadata(staged.read(), {
              maxDecompressedBytes: sdistDecompressionLimit(staged.size),
            });
    } catch (error) {
      throw asRefusal(error);
    }
    const { metadata } = read;
    if (!isValidProjectName(metadata.name))
      throw refused(
        `${metadata.name} (the Name in its metadata) is not a valid project name`,
        "PYPI_INVALID_NAME",
      );
    if (normalizeProjectName(metadata.name) !== form.name)
      throw refused(
        `The metadata of ${filename} names ${metadata.name}, not the project its file name gives`,
        "PYPI_INVALID_METADATA",
      );
    if (normalizePythonVersion(metadata.version) !== form.version)
      throw refused(
        `The metadata of ${filename} says version ${metadata.version}, not ${form.version}`,
        "PYPI_INVALID_METADATA",
      );
    if (form.kind === "sdist") return { metadata };
    // Kept as its bytes are (a byte-order mark too): clients check it against its sha256.
    const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(read.bytes);
    return {
      metadata,
      wheelMetadata: { text, sha256: createHash("sha256").update(read.bytes).digest("hex") },
    };
  };
}

async function* emptyStream(): AsyncIterable<Uint8Array> {}

export interface PythonUpload {
  /** The project, as `owner/slug`. */
  project: string;
  /** The form's fields sent before the file. */
  fields: Record<string, string>;
  filename: string;
  body: AsyncIterable<Uint8Array>;
}

/** Stores a wheel or an sdist uploaded through the index: a release file and its `pypi_file`. */
export async function uploadPythonFile(deps: UploadUseCaseDeps, caller: PersonCaller, upload: PythonUpload) {
  const form = checkUploadForm(upload.fields, upload.filename);
  const { body, result } = hashedWhileRead(upload.body, form.digests);
  const attach: UploadAttachment = {
    ingest: metadataOf(form, upload.filename, result),
    async store(tx, file, ingested) {
      const { metadata, wheelMetadata } = ingested as Ingested;
      await insertPythonFile(tx, {
        file_id: file.id,
        project_id: file.projectId,
        name: form.name,
        display_name: metadata.name,
        version: form.version,
        filename: file.filename,
        packagetype: form.kind === "wheel" ? "bdist_wheel" : "sdist",
        requires_python: metadata.requiresPython ?? null,
        summary: metadata.summary ?? null,
        metadata: wheelMetadata?.text ?? null,
        metadata_sha256: wheelMetadata?.sha256 ?? null,
        created_at: file.createdAt,
      });
    },
  };
  return uploadReleaseFile(deps, caller, {
    project: upload.project,
    version: form.version,
    filename: upload.filename,
    body,
    createRelease: true,
    attach,
  });
}
