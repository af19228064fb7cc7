// Publishing for every repository format a project has (APT suites, YUM groups): one
// mechanism, format builders plugged in.
//
// A build asks each format for its repositories' files, writes every new file first
// (content-addressed, so APT's by-hash paths and YUM's checksum-named repodata exist before
// anything refers to them), then inserts one generation row per repository: that insert is the
// atomic switch of InRelease / repomd.xml. Superseded generations stay served for the grace
// period, and the last few always, so a client holding the previous entry file still finds
// everything it names. Builds of one project are serialized and coalesced: requests made while a
// build runs share the single build after it, which sees all their changes.
//
// Several processes on one database (decision 020): a build reads the project's change-log
// revision first, builds and stores its files, then switches every repository of the project at
// once in one transaction. That transaction holds the project's advisory lock (PostgreSQL;
// SQLite has one writer) and commits only if the build's revision is not older than the one
// served (project.published_revision), so a slow build of an older revision never replaces a
// newer generation: the served index never goes backwards.
import { createHash } from "node:crypto";
import type { SigningKey } from "@packyard/formats/openpgp/index.ts";
import { type Kysely, PostgresAdapter, sql, type Transaction } from "kysely";
import type { Clock } from "../accounts/usernames.ts";
import { servingCachesOf } from "../downloads/serve-cache.ts";
import { newRowId } from "../platform/core/ids.ts";
import type { Database } from "../platform/db/schema.ts";
import type { Logger } from "../platform/observability/logger.ts";
import type { PublishMetrics } from "../platform/observability/metrics.ts";
import type { BlobStore } from "../platform/storage/blob-store.ts";
import { type AptReleaseSettings, aptReleaseSettings } from "../projects/repository-settings.ts";
import type { SigningKeyService } from "../signing-keys/keys.ts";
import {
  collectOrphanIndexBytes,
  missingIndexFiles,
  sweepIndexFiles,
  type TouchedFile,
  touchIndexFiles,
} from "./index-files.ts";
import { IndexSpares, spareKey } from "./index-spares.ts";
import { announcePublished } from "./published.ts";

type Db = Kysely<Database>;
export type RepositoryFormat = "apt" | "yum";

export interface BuildContext {
  db: Db;
  /** The index store: a builder may read the served generation's files back (APT's blocks). */
  store?: BlobStore;
  /** apt: what its Release files say (projects/repository-settings.ts). */
  project: { id: string; name: string; slug: string; username: string; apt: AptReleaseSettings };
  keys: SigningKeyService;
  /** The keys that sign this build: every format signs with the same ones (their fingerprints are recorded). */
  signers: SigningKey[];
  /** The signing time: from the publisher's clock. */
  date: Date;
  /** Names of this format's repositories already published (to republish emptied ones). */
  published: string[];
  /**
   * Starts storing a file of repository `name` now, while the build goes on (an index signed
   * later: its bytes and digests are final). The same file among the built ones is then not
   * stored again. Optional for builders.
   */
  storeEarly?(
    name: string,
    path: string,
    bytes: Uint8Array,
    digests: { sha256: string; sha512: string },
  ): void;
}

export interface BuiltRepository {
  name: string;
  /** Path within the repository → bytes. */
  files: Map<string, Uint8Array>;
  /** Hashes the builder already computed (for Release), so they are not computed twice. */
  digests?: Map<string, { sha256: string; sha512: string }>;
  /**
   * Files listed with their size and hashes but not stored: each is served by decompressing
   * `<path>.gz` of the same generation. Debian's archive does the same with uncompressed Packages.
   */
  listed?: readonly { path: string; size: number; sha256: string; sha512: string }[];
}

export interface FormatBuilder {
  format: RepositoryFormat;
  build(context: BuildContext): Promise<BuiltRepository[]>;
  /**
   * Called once a publish is over (live, superseded or failed): starts what its builds left to do
   * after it (compressing Packages.xz blocks they stored, decision 049); optional.
   */
  afterPublish?(): void;
}

export interface PublisherOptions {
  /** How long a superseded generation stays served. */
  graceMs: number;
  /** Generations per repository always kept, whatever their age. */
  keepGenerations: number;
  /** Index files from this size on get a spare after a publish (decision 049; tests lower it). */
  spareMinBytes?: number;
}

export interface IndexFileRef {
  sha256: string;
  size: number;
  path: string;
  generationId: string;
}

/** The advisory lock of a project's publish: (this namespace, hashtext(project id)). */
export const PUBLISH_LOCK_NAMESPACE = 0x7075_626c; // "publ"

/** A stored index file, as its generation lists it. */
interface StoredRef {
  path: string;
  sha256: string;
  sha512: string;
  size: number;
}

interface PendingRepository {
  format: RepositoryFormat;
  name: string;
  refs: StoredRef[];
  /** The hashes of the files stored (not the listed ones): their index_blob rows must exist at the switch. */
  stored: string[];
}

/**
 * Files up to this size (the entry files: InRelease, Release, Release.gpg, repomd.xml and its
 * signature) are handed to the serving cache as they are stored.
 */
const PRIMED_BYTES = 64 * 1024;

/** How often a build stores its files again when a sweep removed one before its switch. */
const STORE_ATTEMPTS = 3;

/**
 * What a publish leaves to do after it (spares of its large files, Packages.xz blocks to
 * compress: decision 049) starts this long after it: once the request that published has its
 * answer and the clients that were waiting for the publish have fetched the new entry file.
 */
export const AFTER_PUBLISH_MS = 20;

interface PublishState {
  running?: Promise<void>;
  queued?: Promise<void>;
}

export class RepositoryPublisher {
  readonly #db: Db;
  readonly #store: BlobStore;
  readonly #keys: SigningKeyService;
  readonly #logger: Logger;
  readonly #metrics: PublishMetrics | undefined;
  readonly #options: PublisherOptions;
  readonly #builders: FormatBuilder[];
  readonly #clock: Clock;
  readonly #state = new Map<string, PublishState>();
  /** Copies of the large index files made after a publish, for the next one (decision 049). */
  readonly #spares: IndexSpares | undefined;
  /** Builds run so far, per project (tests check coalescing with it). */
  readonly builds = new Map<string, number>();
  /** Builds not committed because a newer revision was already served, per project. */
  readonly superseded = new Map<string, number>();

  constructor(
    deps: {
      db: Db;
      store: BlobStore;
      keys: SigningKeyService;
      logger: Logger;
      metrics?: PublishMetrics;
      builders: FormatBuilder[];
      /** What time it is (tests move it): the signing time of every build. */
      clock?: Clock;
    },
    options: PublisherOptions,
  ) {
    this.#db = deps.db;
    this.#store = deps.store;
    this.#keys = deps.keys;
    this.#logger = deps.logger;
    this.#metrics = deps.metrics;
    this.#builders = deps.builders;
    this.#clock = deps.clock ?? (() => new Date());
    this.#options = options;
    this.#spares = IndexSpares.for(deps.store);
  }

  /** Resolves once the spares of the publishes so far are written (tests). */
  sparesSettled(): Promise<void> {
    return this.#spares?.settled() ?? Promise.resolve();
  }

  /** Removes the spares kept (the server stops). */
  async close(): Promise<void> {
    await this.#spares?.close();
  }

  get store(): BlobStore {
    return this.#store;
  }

  /** Builds running now and builds waiting for one of the same project (the publish queue). */
  queueDepth(): { running: number; waiting: number } {
    let running = 0;
    let waiting = 0;
    for (const state of this.#state.values()) {
      if (state.running) running++;
      if (state.queued) waiting++;
    }
    return { running, waiting };
  }

  /** Rebuilds the project's repositories; resolves once a build that saw every change so far is live. */
  publish(projectId: string): Promise<void> {
    let state = this.#state.get(projectId);
    if (!state) {
      state = {};
      this.#state.set(projectId, state);
    }
    const s = state;
    const start = () => {
      s.running = this.#build(projectId)
        .catch((error: unknown) => {
          this.#metrics?.failed();
          throw error;
        })
        .finally(() => {
          s.running = undefined;
          setTimeout(() => {
            for (const builder of this.#builders) builder.afterPublish?.();
          }, AFTER_PUBLISH_MS).unref();
        });
      return s.running;
    };
    if (!s.running) return start();
    s.queued ??= s.running
      .catch(() => {})
      .then(() => {
        s.queued = undefined;
        return start();
      });
    return s.queued;
  }

  async #build(projectId: string): Promise<void> {
    const started = performance.now();
    this.builds.set(projectId, (this.builds.get(projectId) ?? 0) + 1);
    const project = await this.#db
      .selectFrom("project")
      .innerJoin("user", "user.id", "project.owner_id")
      .select([
        "project.id",
        "project.name",
        "project.slug",
        "project.index_revision",
        "project.apt_label",
        "project.apt_origin",
        "project.apt_codename",
        "project.apt_valid_until_days",
        "project.key_expiry_days",
        "user.username",
      ])
      .where("project.id", "=", projectId)
      .executeTakeFirst();
    if (!project) return;
    // Everything committed up to this revision is in what this build reads.
    const revision = Number(project.index_revision);
    const date = this.#clock();
    /** Names of a format's repositories already published. */
    const publishedNames = (format: RepositoryFormat) =>
      this.#db
        .selectFrom("repo_generation")
        .select("name")
        .distinct()
        .where("project_id", "=", projectId)
        .where("format", "=", format)
        .execute();
    // The first attempt's, asked beside the signing keys: a round trip less one after another.
    const publishedFirst = this.#builders.map((builder) => publishedNames(builder.format));
    for (const names of publishedFirst) names.catch(() => {});
    // One set of signers for every format, recorded at the switch: the key lifecycle job
    // re-signs when the keys that should sign differ from those that did (key-lifecycle.ts).
    const { rows: keyRows, signers } = await this.#keys.active(project, date);
    const signedBy = keyRows.map((row) => row.fingerprint).join(" ");
    // Index files are shared by content between generations and projects, and swept once no
    // generation refers to them and no build touched them for the grace period (index-files.ts).
    // A build slower than that may find at its switch that a file it reused was swept: it then
    // stores its files again.
    let pending: PendingRepository[] = [];
    /** The files of the last attempt's builds: spares of the large ones once it is live. */
    let written: { key: string; bytes: Uint8Array }[] = [];
    let committed = false;
    let previousRevision = 0;
    for (let attempt = 1; ; attempt++) {
      pending = [];
      written = [];
      /** Files a builder handed over before it was done, by repository and path. */
      const early = new Map<string, Promise<StoredRef>>();
      // The formats are built side by side: one's files are written while the other builds
      // (a project of .deb files only still asks the YUM builder, ~0.6 ms at 10,000 packages).
      const builds = this.#builders.map(async (builder, i) => {
        const done: PendingRepository[] = [];
        const published = await (attempt === 1 ? publishedFirst[i]! : publishedNames(builder.format));
        const repositories = await builder.build({
          db: this.#db,
          store: this.#store,
          project: {
            ...project,
            username: project.username ?? "",
            apt: aptReleaseSettings(project, project.username ?? ""),
          },
          keys: this.#keys,
          signers,
          date,
          published: published.map((p) => p.name),
          storeEarly: (name, path, bytes, digests) => {
            const stored = this.#storeFile(
              path,
              bytes,
              digests,
              spareKey(projectId, builder.format, name, path),
            );
            // Awaited with the repository's other files (a failure fails the build there).
            stored.catch(() => {});
            early.set(`${builder.format}\u0000${name}\u0000${path}`, stored);
          },
        });
        for (const repository of repositories) {
          const prefix = `${builder.format}\u0000${repository.name}\u0000`;
          const keyOf = (path: string) => spareKey(projectId, builder.format, repository.name, path);
          done.push({
            format: builder.format,
            name: repository.name,
            ...(await this.#storeFiles(repository, (path) => early.get(prefix + path), keyOf)),
          });
          for (const [path, bytes] of repository.files) written.push({ key: keyOf(path), bytes });
        }
        return done;
      });
      // Each build finishes (or fails) before the publish goes on: none is left writing.
      for (const result of await Promise.allSettled(builds)) {
        if (result.status === "rejected") throw result.reason;
        pending.push(...result.value);
      }
      const switched = await this.#switch(projectId, revision, pending, date, signedBy);
      const outcome = switched.outcome;
      if (outcome !== "files-swept") {
        committed = outcome === "committed";
        previousRevision = switched.previousRevision;
        break;
      }
      if (attempt === STORE_ATTEMPTS)
        throw new Error(
          `publish of ${project.username}/${project.slug}: index files swept before the switch`,
        );
      this.#logger.debug(
        `publish of ${project.username}/${project.slug}: index files swept meanwhile, storing again`,
      );
    }
    const ms = performance.now() - started;
    if (!committed) {
      this.superseded.set(projectId, (this.superseded.get(projectId) ?? 0) + 1);
      this.#logger.debug(
        `publish of ${project.username}/${project.slug} at revision ${revision} superseded by a newer one`,
      );
      return;
    }
    this.#spares?.prepare(written, AFTER_PUBLISH_MS, this.#options.spareMinBytes);
    await Promise.all(pending.map(({ format, name }) => this.#prune(projectId, format, name)));
    this.#metrics?.published(ms / 1000);
    this.#logger.debug(`published ${project.username}/${project.slug} in ${Math.round(ms)} ms`);
    await announcePublished(this.#db, {
      projectId,
      revision,
      previousRevision,
      repositories: pending.map(({ format, name }) => ({ format, name })),
    });
  }

  /**
   * Stores a built repository's new files (those `early` names were started by the builder);
   * returns the rows its generation will have.
   */
  async #storeFiles(
    repository: BuiltRepository,
    early: (path: string) => Promise<StoredRef> | undefined,
    keyOf: (path: string) => string,
  ): Promise<Pick<PendingRepository, "refs" | "stored">> {
    // Unchanged files are already stored under their hash; only new content is written, in
    // parallel, and each file is hashed once.
    const started: Promise<StoredRef>[] = [];
    const rest: { ref: StoredRef; bytes: Uint8Array }[] = [];
    for (const [path, bytes] of repository.files) {
      const handedOver = early(path);
      if (handedOver) started.push(handedOver);
      else rest.push({ ref: this.#describe(path, bytes, repository.digests?.get(path)), bytes });
    }
    // The files not handed over early, touched in one statement.
    const touched = await touchIndexFiles(
      this.#db,
      rest.map((file) => file.ref),
    );
    const refs = await Promise.all([
      ...started,
      ...rest.map((file) =>
        this.#place(file.ref, file.bytes, keyOf(file.ref.path), touched.get(file.ref.sha256)),
      ),
    ]);
    const stored = refs.map((r) => r.sha256);
    for (const { path, size, sha256, sha512 } of repository.listed ?? [])
      refs.push({ path, sha256, sha512, size });
    return { refs, stored };
  }

  /**
   * Stores one index file unless its content is stored already. It is touched before the store is
   * asked about it, so no sweep removes it until the grace period has passed (index-files.ts).
   */
  async #storeFile(
    path: string,
    bytes: Uint8Array,
    known: { sha256: string; sha512: string } | undefined,
    key: string,
  ): Promise<StoredRef> {
    const ref = this.#describe(path, bytes, known);
    const touched = await touchIndexFiles(this.#db, [ref]);
    return this.#place(ref, bytes, key, touched.get(ref.sha256));
  }

  /** A file's row: its digests (computed unless the builder knew them) and size. */
  #describe(
    path: string,
    bytes: Uint8Array,
    known: { sha256: string; sha512: string } | undefined,
  ): StoredRef {
    const sha256 = known?.sha256 ?? createHash("sha256").update(bytes).digest("hex");
    const sha512 = known?.sha512 ?? createHash("sha512").update(bytes).digest("hex");
    return { path, sha256, sha512, size: bytes.byteLength };
  }

  /**
   * Writes a touched file's bytes unless that content is stored already: from the spare of the
   * file at `key` (its previous content) when there is one. What the touch found decides
   * (index-files.ts): `new` content is written without asking the store, content a committed
   * generation refers to (`stored`) is not written, and the store is asked about the rest (on S3
   * each question was a sequential HEAD before the publish could go on).
   */
  async #place(
    ref: StoredRef,
    bytes: Uint8Array,
    key: string,
    touched: TouchedFile | undefined,
  ): Promise<StoredRef> {
    const spare = this.#spares?.take(key);
    const write = touched === "new" || (touched !== "stored" && !(await this.#store.exists(ref.sha256)));
    if (write) await this.#store.putBytes(bytes, ref.sha256, { spare });
    else if (spare) this.#spares!.giveBack(key, spare);
    // Every client asks for the new entry file first, and its bytes are in hand: the first
    // request after the switch does not read them back from the store. Named by content, so
    // never stale (downloads/serve-cache.ts).
    if (bytes.byteLength <= PRIMED_BYTES)
      servingCachesOf(this.#db).content.set(
        ref.sha256,
        Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      );
    return ref;
  }

  /**
   * The atomic switch: one transaction, under the project's advisory lock, inserts a generation
   * per repository and records the revision served, unless a build of a newer revision got
   * there first ("superseded") or a file it stored was swept since ("files-swept").
   */
  async #switch(
    projectId: string,
    revision: number,
    pending: PendingRepository[],
    date: Date,
    signedBy: string,
  ): Promise<{ outcome: "committed" | "superseded" | "files-swept"; previousRevision: number }> {
    return this.#db.transaction().execute(async (tx) => {
      if (tx.getExecutor().adapter instanceof PostgresAdapter) {
        await sql`select pg_advisory_xact_lock(${PUBLISH_LOCK_NAMESPACE}, hashtext(${projectId}))`.execute(
          tx,
        );
      }
      // Read after the lock: under READ COMMITTED this sees every switch committed before it.
      const served = await tx
        .selectFrom("project")
        .select("published_revision")
        .where("id", "=", projectId)
        .executeTakeFirst();
      const previousRevision = Number(served?.published_revision ?? 0);
      if (!served || previousRevision > revision) return { outcome: "superseded", previousRevision };
      // The files' rows, locked until the generations referring to them are committed.
      if (
        (
          await missingIndexFiles(
            tx,
            pending.flatMap((r) => r.stored),
          )
        ).length > 0
      )
        return { outcome: "files-swept", previousRevision };
      await this.#insertGenerations(tx, projectId, pending, date);
      await tx
        .updateTable("project")
        .set({ published_revision: revision, signed_by: signedBy })
        .where("id", "=", projectId)
        .execute();
      return { outcome: "committed", previousRevision };
    });
  }

  /**
   * One generation per repository, numbered after the repository's newest, and their files: two
   * statements whatever the number of repositories (a round trip each inside the switch's lock).
   */
  async #insertGenerations(
    tx: Transaction<Database>,
    projectId: string,
    pending: PendingRepository[],
    date: Date,
  ) {
    if (pending.length === 0) return;
    const generations = pending.map((repository) => ({ id: newRowId(), repository }));
    await tx
      .insertInto("repo_generation")
      .values(
        generations.map(({ id, repository: { format, name } }) => ({
          id,
          project_id: projectId,
          format,
          name,
          number: sql<number>`(select coalesce(max(number), 0) + 1 from repo_generation
            where project_id = ${projectId} and format = ${format} and name = ${name})`,
          created_at: date.toISOString(),
        })),
      )
      .execute();
    const files = generations.flatMap(({ id, repository }) =>
      repository.refs.map((r) => ({ generation_id: id, ...r })),
    );
    // In statements of at most 1,000 rows (5,000 parameters): far within both databases' limits.
    for (let i = 0; i < files.length; i += 1000)
      await tx
        .insertInto("repo_index_file")
        .values(files.slice(i, i + 1000))
        .execute();
  }

  async #prune(projectId: string, format: RepositoryFormat, name: string) {
    const generations = await this.#db
      .selectFrom("repo_generation")
      .select(["id", "number", "created_at"])
      .where("project_id", "=", projectId)
      .where("format", "=", format)
      .where("name", "=", name)
      .orderBy("number", "desc")
      .execute();
    const cutoff = this.#clock().getTime() - this.#options.graceMs;
    // A generation stops being served once a newer one has been live for the grace period.
    const expired = generations.filter((_generation, i) => {
      if (i < this.#options.keepGenerations) return false;
      return Date.parse(generations[i - 1]!.created_at) < cutoff;
    });
    if (expired.length === 0) return;
    // Rows only: the files they referred to are removed by the sweep (collectIndexFiles) once no
    // generation refers to them and no build has touched them for the grace period.
    const ids = expired.map((g) => g.id);
    await this.#db.deleteFrom("repo_index_file").where("generation_id", "in", ids).execute();
    await this.#db.deleteFrom("repo_generation").where("id", "in", ids).execute();
  }

  /**
   * Garbage collection of the index store (decision 022): removes index files no generation
   * refers to (pruned generations, deleted projects, superseded builds) that no build touched
   * for `graceMs`, and bytes no row claims (a build cut off before its first touch) not written
   * to for `graceMs`. Safe with any number of servers building and collecting at once.
   */
  async collectIndexFiles(graceMs: number): Promise<number> {
    return (
      (await sweepIndexFiles(this.#db, this.#store, graceMs)) +
      (await collectOrphanIndexBytes(this.#db, this.#store, graceMs))
    );
  }

  /**
   * Publishes every project whose packages changed after its repositories were last published:
   * after a crash between a commit and its publish, at start-up.
   */
  async publishLagging(): Promise<string[]> {
    const behind = await this.#db
      .selectFrom("project")
      .select("id")
      .whereRef("index_revision", ">", "published_revision")
      .execute();
    for (const { id } of behind) await this.publish(id);
    return behind.map((p) => p.id);
  }

  /**
   * Publishes the project if its packages changed after its repositories were last published
   * (the queued publish job, publish-job.ts): a no-op when the server that took the change
   * published it already. True when it published.
   */
  async publishIfBehind(projectId: string): Promise<boolean> {
    const behind = await this.#db
      .selectFrom("project")
      .select("id")
      .where("id", "=", projectId)
      .whereRef("index_revision", ">", "published_revision")
      .executeTakeFirst();
    if (!behind) return false;
    await this.publish(projectId);
    return true;
  }

  #files(projectId: string, format: RepositoryFormat, name: string) {
    return this.#db
      .selectFrom("repo_index_file")
      .innerJoin("repo_generation", "repo_generation.id", "repo_index_file.generation_id")
      .select([
        "repo_index_file.sha256",
        "repo_index_file.size",
        "repo_index_file.path",
        "repo_index_file.generation_id as generationId",
      ])
      .where("repo_generation.project_id", "=", projectId)
      .where("repo_generation.format", "=", format)
      .where("repo_generation.name", "=", name);
  }

  /** A file of the repository's newest generation, by path. */
  async currentFile(
    projectId: string,
    format: RepositoryFormat,
    name: string,
    path: string,
  ): Promise<IndexFileRef | undefined> {
    const row = await this.#files(projectId, format, name)
      .where("repo_index_file.path", "=", path)
      .orderBy("repo_generation.number", "desc")
      .executeTakeFirst();
    return row ? { ...row, size: Number(row.size) } : undefined;
  }

  /** Another file of the same generation (the .gz an unstored file is served from). */
  async fileInGeneration(generationId: string, path: string): Promise<IndexFileRef | undefined> {
    const row = await this.#db
      .selectFrom("repo_index_file")
      .select(["sha256", "size", "path", "generation_id as generationId"])
      .where("generation_id", "=", generationId)
      .where("path", "=", path)
      .executeTakeFirst();
    return row ? { ...row, size: Number(row.size) } : undefined;
  }

  /** A file of any still-served generation under a directory, by hash (APT's by-hash paths). */
  async fileByHash(
    projectId: string,
    format: RepositoryFormat,
    name: string,
    directory: string,
    algorithm: "SHA256" | "SHA512",
    hex: string,
  ): Promise<IndexFileRef | undefined> {
    const row = await this.#files(projectId, format, name)
      .where(algorithm === "SHA256" ? "repo_index_file.sha256" : "repo_index_file.sha512", "=", hex)
      .where("repo_index_file.path", "like", `${directory}/%`)
      .executeTakeFirst();
    return row ? { ...row, size: Number(row.size) } : undefined;
  }

  /**
   * A file of one still-served generation of a repository, with that generation's number: of
   * the newest generation holding `path`, or of the given generation, or of the newest one in
   * which the file at `path` has one of the given sha256s. Undefined once the generation is no
   * longer served. YUM answers repomd.xml.asc from the generation of the repomd.xml a client
   * holds with it (decision 013).
   */
  async servedFile(
    projectId: string,
    format: RepositoryFormat,
    name: string,
    path: string,
    of: { generationId?: string; sha256?: readonly string[] } = {},
  ): Promise<(IndexFileRef & { generationNumber: number }) | undefined> {
    if (of.sha256?.length === 0) return undefined;
    let query = this.#files(projectId, format, name)
      .select("repo_generation.number as generationNumber")
      .where("repo_index_file.path", "=", path);
    if (of.generationId !== undefined) query = query.where("repo_generation.id", "=", of.generationId);
    if (of.sha256) query = query.where("repo_index_file.sha256", "in", [...of.sha256]);
    const row = await query.orderBy("repo_generation.number", "desc").executeTakeFirst();
    return row
      ? { ...row, size: Number(row.size), generationNumber: Number(row.generationNumber) }
      : undefined;
  }
}
