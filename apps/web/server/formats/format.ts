// A package format (decision 075): what a format adds to the generic release files. An upload
// it recognises is read (and, for an .rpm, signed) once, stored as the format's package row
// beside its release file, and listed by the format's builder in the project's repositories.
// Shared code asks the registry (registry.ts) instead of naming .deb or .rpm. The publisher,
// generations, index store, signing keys and the /dl cache stay shared: a format only adds files
// to a generation.
import type { FileKind, ImportSourceInput, PromoteInput } from "@packyard/contract";
import type { SigningKey } from "@packyard/formats/openpgp/index.ts";
import type { Kysely } from "kysely";
import type { Answer, DlDeps, DlRequest } from "../downloads/dl-answer.ts";
import type { ImportSource } from "../imports/source.ts";
import type { Tx } from "../platform/core/use-case.ts";
import type { Database } from "../platform/db/schema.ts";
import type { JobDefinition, JobQueue } from "../platform/jobs/queue.ts";
import type { Logger } from "../platform/observability/logger.ts";
import type { BlobDigests, BlobStore, StagedBlob, StageOptions } from "../platform/storage/blob-store.ts";
import type { MemoryBudget } from "../repositories/memory-budget.ts";
import type { FormatBuilder, RepositoryFormat, RepositoryPublisher } from "../repositories/publisher.ts";
import type { SigningKeyService } from "../signing-keys/keys.ts";

/** What ingest is given: the staged upload (or a stored file, promoted) and how to sign it. */
export interface IngestContext {
  blobs: BlobStore;
  staged: BlobDigests & Pick<StagedBlob, "read">;
  /** The upload limit: a format that stages a new file (a signed .rpm) keeps to it. */
  maxBytes: number;
  /** The project's newest signing key, for a format that signs what it stores. */
  signingKey?: () => Promise<SigningKey>;
}

/** What ingest read: the package, and the bytes to store instead of the given ones (a signed .rpm). */
export interface Ingested<Parsed> {
  parsed: Parsed;
  restaged?: StagedBlob;
}

/** The release file a package row belongs to, as recorded in the upload's transaction. */
export interface StoredFile {
  id: string;
  projectId: string;
  releaseId: string;
  filename: string;
  createdAt: string;
  size: number;
  sha256: string;
  sha1: string;
  md5: string;
}

/** What a format's background jobs may use (services.ts). */
export interface FormatJobDeps {
  db: Kysely<Database>;
  blobs: BlobStore;
  keys: SigningKeyService;
  repos: RepositoryPublisher;
  logger: Logger;
}

export interface PackageFormat<Target = unknown, Parsed = unknown> {
  /** Repository format id: repo_generation.format, the index store's and caches' namespace. */
  readonly id: RepositoryFormat;
  /** The upload's file kind (release_file.kind) and the Content-Type it is served with. */
  readonly fileKind: FileKind;
  readonly contentType: string;
  recognises(filename: string): boolean;
  /** /dl/{user}/{project}/{routePrefix}/… and setup.{routePrefix}.sh. */
  readonly routePrefix: string;
  /** setup.{routePrefix}.sh: what `curl … | sudo bash` runs to add the repository. */
  setupScript(options: {
    baseUrl: string;
    owner: string;
    slug: string;
    private: boolean;
    /** The read token the script was fetched with: the script writes it unless told another. */
    token?: string;
  }): string;
  /** The answer to /dl/{user}/{project}/{routePrefix}/… (downloads/dl-answer.ts's `package` route). */
  resolve(deps: DlDeps, req: DlRequest): Promise<Answer>;
  /** Where an upload goes: its query or form fields (name → OpenAPI description). */
  readonly targetFields: Readonly<Record<string, string>>;
  /** The fields' values → a checked target (its defaults when absent); throws a DomainError. */
  parseTarget(field: (name: string) => string | undefined): Target;
  /** The digests the upload computes while it is received (StageOptions of the staged blob). */
  readonly uploadDigests: Pick<StageOptions, "digests" | "keepDigests">;
  /** Reads (and signs) the staged upload outside any transaction; a bad package throws a 400. */
  ingest(context: IngestContext): Promise<Ingested<Parsed>>;
  /** Writes the package row in the upload's (or a promotion copy's) transaction, after its release file's row. */
  store(tx: Tx, file: StoredFile, parsed: Parsed, target: Target): Promise<void>;
  /** Where a text names a target: the audit entry and a promotion's answer ("stable/main", a group). */
  describe(target: Target): string;
  /** Promotion (decision 035): where a release's packages of this format are listed, by file id. */
  listed(db: Kysely<Database>, releaseId: string): Promise<Map<string, Target>>;
  /** The target a promotion names for a package listed at `current` (a field not given: as it is). */
  promotedTarget(current: Target, input: PromoteInput): Target;
  /**
   * Prepares moving a package's listing within its project (outside any transaction: APT reads
   * the package again for its new pool path); the returned function applies it in one.
   */
  retarget(blobs: BlobStore, file: StoredFile, target: Target): Promise<(tx: Tx) => Promise<void>>;
  /** The publisher's builder for this format's repositories. */
  builder(budget: MemoryBudget): FormatBuilder;
  /** Background jobs the format runs (the .rpm re-signing after a rotation). */
  jobs?(deps: FormatJobDeps): JobDefinition<never>[];
  /**
   * Stored files signed with the project's key (decision 030): after a rotation `queue` has them
   * re-signed by the newest key (YUM: the .rpm files); `staleProjects` lists the projects with a
   * file the newest key did not sign (the key lifecycle job's catch-up).
   */
  readonly resign?: {
    queue(jobs: Pick<JobQueue, "send">, projectId: string): Promise<void>;
    staleProjects(db: Kysely<Database>): Promise<string[]>;
    /**
     * Fingerprints of keys gpg.key serves beside the active ones: those a served file still
     * carries the signature of until it is re-signed (YUM: a retired key's .rpm files).
     */
    keysStillServed(
      deps: { db: Kysely<Database>; keys: Pick<SigningKeyService, "newest" | "active" | "all"> },
      project: { id: string; name: string },
    ): Promise<string[]>;
  };
  /** Imports from an existing repository of this format (imports/sources.ts). */
  readonly importSource?: {
    kind: ImportSourceInput["kind"];
    create(input: ImportSourceInput, deps: { fetch: typeof fetch }): ImportSource;
  };
}
