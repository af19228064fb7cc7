// A project's APT repository: publishing and lookups.
//
// Publishing writes every new index file first (content-addressed, so by-hash paths are free)
// and then inserts one generation row: that insert is the atomic switch of InRelease/Release.
// Older generations stay served for the grace period, and the last few always, so a client
// holding the previous InRelease still finds its by-hash files. Publishes to one repository are
// serialized and coalesced: requests made while a build runs share the single build after it.
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { newRowId } from "../../domain/ids.ts";
import type { Logger } from "../../logger.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import type { SigningKeyService } from "../signing-keys.ts";
import { buildSuite, type SuitePackage } from "./build-index.ts";

type Db = Kysely<Database>;

export interface AptRepositoryOptions {
  /** How long a superseded generation stays served. */
  graceMs: number;
  /** Generations per suite always kept, whatever their age. */
  keepGenerations: number;
}

export interface IndexFileRef {
  sha256: string;
  size: number;
  path: string;
}

interface PublishState {
  running?: Promise<void>;
  queued?: Promise<void>;
}

export class AptRepositoryService {
  readonly #db: Db;
  readonly #store: BlobStore;
  readonly #keys: SigningKeyService;
  readonly #logger: Logger;
  readonly #options: AptRepositoryOptions;
  readonly #state = new Map<string, PublishState>();
  /** Index builds run so far, per project (tests check coalescing with it). */
  readonly builds = new Map<string, number>();

  constructor(
    db: Db,
    store: BlobStore,
    keys: SigningKeyService,
    logger: Logger,
    options: AptRepositoryOptions,
  ) {
    this.#db = db;
    this.#store = store;
    this.#keys = keys;
    this.#logger = logger;
    this.#options = options;
  }

  get store(): BlobStore {
    return this.#store;
  }

  /** Rebuilds the project's indexes; resolves once a build that saw every change so far is live. */
  publish(projectId: string): Promise<void> {
    let state = this.#state.get(projectId);
    if (!state) {
      state = {};
      this.#state.set(projectId, state);
    }
    const s = state;
    const start = () => {
      s.running = this.#build(projectId).finally(() => {
        s.running = undefined;
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
    const db = this.#db;
    const project = await db
      .selectFrom("project")
      .innerJoin("user", "user.id", "project.owner_id")
      .select(["project.id", "project.name", "project.slug", "user.username"])
      .where("project.id", "=", projectId)
      .executeTakeFirst();
    if (!project) return;
    const rows = await db
      .selectFrom("deb_package")
      .innerJoin("release_file", "release_file.id", "deb_package.file_id")
      .innerJoin("release", "release.id", "release_file.release_id")
      .select([
        "deb_package.suite",
        "deb_package.component",
        "deb_package.name",
        "deb_package.version",
        "deb_package.architecture",
        "deb_package.stanza",
      ])
      .where("deb_package.project_id", "=", projectId)
      .where("release.yanked", "=", 0)
      .orderBy("release.created_at", "desc")
      .orderBy("release.id", "desc")
      .execute();
    const published = await db
      .selectFrom("apt_generation")
      .select("suite")
      .distinct()
      .where("project_id", "=", projectId)
      .execute();
    const everDeb = await db
      .selectFrom("deb_package")
      .select("suite")
      .distinct()
      .where("project_id", "=", projectId)
      .execute();
    // A suite whose packages were all yanked or deleted is republished empty, not left stale.
    const suites = [
      ...new Set([
        ...rows.map((r) => r.suite),
        ...published.map((p) => p.suite),
        ...everDeb.map((e) => e.suite),
      ]),
    ];
    if (suites.length === 0) return;
    const { signers } = await this.#keys.active(project);
    const date = new Date();
    for (const suite of suites) {
      const packages: SuitePackage[] = rows.filter((r) => r.suite === suite);
      const built = await buildSuite({
        origin: "Packyard",
        label: `${project.username}/${project.slug}`,
        suite,
        date,
        packages,
        signers,
      });
      const refs: { path: string; sha256: string; sha512: string; size: number }[] = [];
      for (const [path, bytes] of built.files) {
        const staged = await this.#store.stage(
          (async function* () {
            yield bytes;
          })(),
          { maxBytes: Number.MAX_SAFE_INTEGER },
        );
        await staged.commit();
        refs.push({ path, sha256: staged.sha256, sha512: staged.sha512, size: staged.size });
      }
      await db.transaction().execute(async (tx) => {
        const { max } = await tx
          .selectFrom("apt_generation")
          .select((eb) => eb.fn.max("number").as("max"))
          .where("project_id", "=", projectId)
          .where("suite", "=", suite)
          .executeTakeFirstOrThrow();
        const id = newRowId();
        await tx
          .insertInto("apt_generation")
          .values({
            id,
            project_id: projectId,
            suite,
            number: Number(max ?? 0) + 1,
            created_at: date.toISOString(),
          })
          .execute();
        await tx
          .insertInto("apt_index_file")
          .values(refs.map((r) => ({ generation_id: id, ...r })))
          .execute();
      });
      await this.#prune(projectId, suite);
    }
    this.#logger.debug(
      `apt: published ${project.username}/${project.slug} (${rows.length} packages) in ${Math.round(performance.now() - started)} ms`,
    );
  }

  async #prune(projectId: string, suite: string) {
    const generations = await this.#db
      .selectFrom("apt_generation")
      .select(["id", "number", "created_at"])
      .where("project_id", "=", projectId)
      .where("suite", "=", suite)
      .orderBy("number", "desc")
      .execute();
    const cutoff = Date.now() - this.#options.graceMs;
    // A generation stops being served once a newer one has been live for the grace period.
    const expired = generations.filter((_generation, i) => {
      if (i < this.#options.keepGenerations) return false;
      const supersededAt = Date.parse(generations[i - 1]!.created_at);
      return supersededAt < cutoff;
    });
    if (expired.length === 0) return;
    const ids = expired.map((g) => g.id);
    const files = await this.#db
      .selectFrom("apt_index_file")
      .select("sha256")
      .where("generation_id", "in", ids)
      .execute();
    await this.#db.deleteFrom("apt_index_file").where("generation_id", "in", ids).execute();
    await this.#db.deleteFrom("apt_generation").where("id", "in", ids).execute();
    for (const sha256 of new Set(files.map((f) => f.sha256))) {
      const still = await this.#db
        .selectFrom("apt_index_file")
        .select("path")
        .where("sha256", "=", sha256)
        .executeTakeFirst();
      if (!still) await this.#store.delete(sha256);
    }
  }

  /** A file of the suite's newest generation, by its path under dists/<suite>/. */
  async currentFile(projectId: string, suite: string, path: string): Promise<IndexFileRef | undefined> {
    const row = await this.#db
      .selectFrom("apt_index_file")
      .innerJoin("apt_generation", "apt_generation.id", "apt_index_file.generation_id")
      .select(["apt_index_file.sha256", "apt_index_file.size", "apt_index_file.path"])
      .where("apt_generation.project_id", "=", projectId)
      .where("apt_generation.suite", "=", suite)
      .where("apt_index_file.path", "=", path)
      .orderBy("apt_generation.number", "desc")
      .executeTakeFirst();
    return row ? { ...row, size: Number(row.size) } : undefined;
  }

  /** A file of any still-served generation, by hash (the by-hash paths). */
  async fileByHash(
    projectId: string,
    suite: string,
    directory: string,
    algorithm: "SHA256" | "SHA512",
    hex: string,
  ) {
    const column = algorithm === "SHA256" ? "apt_index_file.sha256" : "apt_index_file.sha512";
    const row = await this.#db
      .selectFrom("apt_index_file")
      .innerJoin("apt_generation", "apt_generation.id", "apt_index_file.generation_id")
      .select(["apt_index_file.sha256", "apt_index_file.size", "apt_index_file.path"])
      .where("apt_generation.project_id", "=", projectId)
      .where("apt_generation.suite", "=", suite)
      .where(column, "=", hex)
      .where("apt_index_file.path", "like", `${directory}/%`)
      .executeTakeFirst();
    return row ? { ...row, size: Number(row.size) } : undefined;
  }

  async poolFile(projectId: string, poolPath: string) {
    return this.#db
      .selectFrom("deb_package")
      .innerJoin("release_file", "release_file.id", "deb_package.file_id")
      .select([
        "release_file.sha256",
        "release_file.size",
        "release_file.content_type",
        "release_file.created_at",
      ])
      .where("deb_package.project_id", "=", projectId)
      .where("deb_package.pool_path", "=", poolPath)
      .executeTakeFirst();
  }
}
