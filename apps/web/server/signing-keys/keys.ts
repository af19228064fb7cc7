// Each project's OpenPGP signing keys. The first key is made when the project is created (or
// first needed); rotation adds the next generation and keeps the previous key signing until
// its retire_at, so clients that trust either key keep working through the overlap window.
// Private keys are stored encrypted with the server secret and unlocked once per process.
// A project may give its keys an expiry (key_expiry_days): new keys then carry an OpenPGP
// expiration, and the key lifecycle job (key-lifecycle.ts) makes the successor in time.
import {
  encryptPrivateKey,
  generateSigningKey,
  type SigningKey,
  type SigningKeyAlgorithm,
  unlockSigningKey,
} from "@packyard/formats/openpgp/index.ts";
import type { Kysely, Selectable } from "kysely";
import type { Clock } from "../accounts/usernames.ts";
import { newRowId } from "../platform/core/ids.ts";
import { inTransaction } from "../platform/core/use-case.ts";
import type { Database, SigningKeyTable } from "../platform/db/schema.ts";

export type SigningKeyRow = Selectable<SigningKeyTable>;
type Db = Kysely<Database>;

export interface ProjectSigningKeys {
  /** Every key that signs now: one, or two during a rotation's overlap. Oldest first. */
  rows: SigningKeyRow[];
  signers: SigningKey[];
}

/** A key made but not yet stored: its row but the generation, decided when it is stored. */
export type PreparedSigningKey = Omit<SigningKeyRow, "generation">;

export const DEFAULT_ROTATION_OVERLAP_MS = 7 * 24 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

export class SigningKeyService {
  readonly #db: Db;
  readonly #secret: string;
  readonly #unlocked = new Map<string, Promise<SigningKey>>();
  readonly #clock: Clock;

  constructor(db: Db, secret: string, clock: Clock = () => new Date()) {
    this.#db = db;
    this.#secret = secret;
    this.#clock = clock;
  }

  #context(projectId: string) {
    return { context: `packyard signing key ${projectId}` };
  }

  /** A new key's row but its generation: made outside any transaction (generating takes a while). */
  async #generate(
    project: { id: string; name: string },
    algorithm: SigningKeyAlgorithm,
  ): Promise<PreparedSigningKey> {
    const settings = await this.#db
      .selectFrom("project")
      .select("key_expiry_days")
      .where("id", "=", project.id)
      .executeTakeFirst();
    // Whole seconds: OpenPGP's creation and expiration times have no finer resolution.
    const created = new Date(Math.floor(this.#clock().getTime() / 1000) * 1000);
    const expiryDays = settings?.key_expiry_days == null ? null : Number(settings.key_expiry_days);
    const expiresAt = expiryDays === null ? undefined : new Date(created.getTime() + expiryDays * DAY_MS);
    const key = await generateSigningKey({
      name: `${project.name} (Packyard repository signing key)`,
      email: `repository+${project.id}@packyard.invalid`,
      algorithm,
      date: created,
      expiresAt,
    });
    return {
      id: newRowId(),
      project_id: project.id,
      algorithm,
      fingerprint: key.fingerprint,
      public_key: key.armoredPublicKey,
      private_key: encryptPrivateKey(key.armoredPrivateKey, this.#secret, this.#context(project.id)),
      created_at: created.toISOString(),
      retire_at: null,
      expires_at: expiresAt?.toISOString() ?? null,
      notice_30_at: null,
      notice_7_at: null,
    };
  }

  /**
   * Stores the key as `generation`; false when someone else stored that generation first (theirs
   * is the key). ON CONFLICT rather than catching the violation: on PostgreSQL a failed statement
   * would abort the transaction this may run in.
   */
  async #insert(db: Db, key: PreparedSigningKey, generation: number): Promise<boolean> {
    const result = await db
      .insertInto("signing_key")
      .values({ ...key, generation })
      .onConflict((conflict) => conflict.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  /** The project's first key, made if it has none. Safe to call concurrently. */
  async ensure(
    project: { id: string; name: string },
    algorithm: SigningKeyAlgorithm = "rsa3072",
  ): Promise<void> {
    const existing = await this.#db
      .selectFrom("signing_key")
      .select("id")
      .where("project_id", "=", project.id)
      .executeTakeFirst();
    if (!existing) await this.#insert(this.#db, await this.#generate(project, algorithm), 1);
  }

  /**
   * The keys that sign at `now`: not retired and not expired (an expired key cannot sign, and
   * apt would call its signature expired). Should every key have expired (the lifecycle job did
   * not run), the newest is returned: publishing then fails, logged, until the job's successor.
   */
  async active(project: { id: string; name: string }, now = this.#clock()): Promise<ProjectSigningKeys> {
    await this.ensure(project);
    const at = now.toISOString();
    let rows = await this.#db
      .selectFrom("signing_key")
      .selectAll()
      .where("project_id", "=", project.id)
      .where((eb) => eb.or([eb("retire_at", "is", null), eb("retire_at", ">", at)]))
      .orderBy("generation")
      .execute();
    const unexpired = rows.filter((row) => row.expires_at === null || row.expires_at > at);
    if (unexpired.length > 0) rows = unexpired;
    else rows = rows.slice(-1);
    const signers = await Promise.all(rows.map((row) => this.#unlock(row)));
    return { rows, signers };
  }

  /** The newest key: the one single-signature formats (RPM headers) are signed with. */
  async newest(project: { id: string; name: string }): Promise<SigningKey> {
    const { signers } = await this.active(project);
    return signers[signers.length - 1]!;
  }

  #unlock(row: SigningKeyRow): Promise<SigningKey> {
    let key = this.#unlocked.get(row.id);
    if (!key) {
      key = unlockSigningKey(row.private_key, this.#secret, this.#context(row.project_id));
      this.#unlocked.set(row.id, key);
      key.catch(() => this.#unlocked.delete(row.id));
    }
    return key;
  }

  /** Every key of the project, oldest first (the lifecycle job's view). */
  async all(projectId: string): Promise<SigningKeyRow[]> {
    return this.#db
      .selectFrom("signing_key")
      .selectAll()
      .where("project_id", "=", projectId)
      .orderBy("generation")
      .execute();
  }

  /**
   * Makes the next key; the current ones keep signing until now + overlap, or until `retireAt`
   * when given (the lifecycle job retires a key before it expires). Announces nothing: a
   * rotation someone asked for goes through projects/use-cases.ts (rotateSigningKey), which
   * records and announces it; this is the same change for tests and tools.
   */
  async rotate(
    project: { id: string; name: string },
    options: { algorithm?: SigningKeyAlgorithm; overlapMs?: number; retireAt?: Date } = {},
  ): Promise<SigningKeyRow> {
    const prepared = await this.prepareRotation(project, options.algorithm);
    const { row } = await inTransaction(this.#db, (tx) => this.storeRotation(tx, prepared, options));
    return row;
  }

  /**
   * The next key's material, made before the change that stores it (storeRotation): generating
   * an RSA key takes a while, too long to hold a transaction open. The project's first key is
   * made first if it has none.
   */
  async prepareRotation(
    project: { id: string; name: string },
    algorithm: SigningKeyAlgorithm = "rsa3072",
  ): Promise<PreparedSigningKey> {
    await this.ensure(project);
    return this.#generate(project, algorithm);
  }

  /**
   * Stores a prepared key as the project's next generation on `db` (a use case's transaction)
   * and sets the current keys' retire_at. `created` is false when a concurrent rotation stored
   * that generation first (its key is returned); `previous`: the keys still signing beside the
   * new one, until their overlap ends.
   */
  async storeRotation(
    db: Db,
    prepared: PreparedSigningKey,
    options: { overlapMs?: number; retireAt?: Date } = {},
  ): Promise<{ row: SigningKeyRow; created: boolean; previous: string[] }> {
    const projectId = prepared.project_id;
    const { max } = await db
      .selectFrom("signing_key")
      .select((eb) => eb.fn.max("generation").as("max"))
      .where("project_id", "=", projectId)
      .executeTakeFirstOrThrow();
    const next = Number(max ?? 0) + 1;
    const retireAt = (
      options.retireAt ??
      new Date(this.#clock().getTime() + (options.overlapMs ?? DEFAULT_ROTATION_OVERLAP_MS))
    ).toISOString();
    const created = await this.#insert(db, prepared, next);
    if (created) {
      await db
        .updateTable("signing_key")
        .set({ retire_at: retireAt })
        .where("project_id", "=", projectId)
        .where("generation", "<", next)
        .where("retire_at", "is", null)
        .execute();
    }
    const row = await db
      .selectFrom("signing_key")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("generation", "=", next)
      .executeTakeFirstOrThrow();
    const previous = created
      ? await db
          .selectFrom("signing_key")
          .select("fingerprint")
          .where("project_id", "=", projectId)
          .where("generation", "<", next)
          .where("retire_at", ">", this.#clock().toISOString())
          .orderBy("generation", "desc")
          .execute()
      : [];
    return { row, created, previous: previous.map((p) => p.fingerprint) };
  }
}
