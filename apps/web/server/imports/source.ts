// What an importer reads from: GitHub Releases, an APT repository or a YUM repository. A source
// only reads (the API or the index) and opens files; the import job (imports/run.ts) downloads
// each release's files to a spool, and only when every file of a release has arrived and been
// verified does it create the release in the project, so nothing is half-imported per release.

/** Stable codes for what can go wrong while importing; shown in the dashboard and the API. */
export type ImportErrorCode =
  /** The source (repository, release list, index or file) does not exist: HTTP 404 or 410. */
  | "SOURCE_NOT_FOUND"
  /** The source refused the credentials, or needs some: HTTP 401 or 403. */
  | "SOURCE_AUTH_FAILED"
  /** The source could not be reached or answered with another error (5xx, reset, timeout). */
  | "SOURCE_UNREACHABLE"
  /**
   * The source, or a redirect or index on the way, points at a loopback, link-local or private
   * address, which the server does not reach unless WEBHOOK_ALLOW_PRIVATE is set.
   */
  | "SOURCE_FORBIDDEN"
  /** The source answered with something that is not a valid index or API answer. */
  | "SOURCE_INVALID"
  /** A file's bytes do not match the size or checksum its index gives. */
  | "CHECKSUM_MISMATCH"
  /** Packyard refused the file (its own validation: name, type, plan limits). */
  | "FILE_REFUSED"
  /** An index lists more packages, or is larger decompressed, than an import reads. */
  | "SOURCE_TOO_LARGE"
  /** The import did not finish within its time limit. */
  | "TIMED_OUT";

export class ImportError extends Error {
  readonly code: ImportErrorCode;
  /** What the error is about: a file name, a URL, a version. */
  readonly subject: string | undefined;
  constructor(code: ImportErrorCode, message: string, subject?: string) {
    super(message);
    this.name = "ImportError";
    this.code = code;
    this.subject = subject;
  }
}

export interface SourceFile {
  /** The file's name in the release (a valid Packyard file name). */
  filename: string;
  /** Size in bytes, when the source states it. */
  size?: number;
  /**
   * Opens the file's bytes. When the source's index gives a size or checksum, the stream is
   * verified as it is read and ends with an ImportError("CHECKSUM_MISMATCH", …, filename)
   * instead of its last chunk if the bytes do not match. HTTP failures throw ImportError too.
   */
  open(signal: AbortSignal): Promise<ReadableStream<Uint8Array>>;
}

export interface SourceRelease {
  /** The Packyard release version (a valid version: see releases/files.ts assertValidVersion). */
  version: string;
  title?: string | null;
  notes?: string | null;
  /** When the source published it (ISO 8601), to import oldest first. */
  publishedAt?: string | null;
  files: SourceFile[];
}

export interface ImportSource {
  /** Reads the source's releases (API pages or the whole index). Throws ImportError. */
  listReleases(signal: AbortSignal): Promise<SourceRelease[]>;
}
