// Packyard's own schema changes, in order. Each one is written once and never edited after it
// ships; a change to the schema is a new entry. Runs after better-auth's own migrations, so
// better-auth's tables (user, session, account, verification) exist here.
import type { Kysely } from "kysely";
import { PostgresAdapter, sql } from "kysely";
import type { Migration } from "kysely/migration";
import { gcMarkAndSweep } from "./0015-gc-mark-and-sweep.ts";

/** The tables whose changes may change what /dl answers (migration 0025). */
const SERVED_TABLES = [
  "user",
  "project",
  "release",
  "release_file",
  "blob",
  "deb_package",
  "yum_package",
  "repo_generation",
  "repo_index_file",
  "signing_key",
  "username_history",
  "released_username",
];

export const migrations: Record<string, Migration> = {
  "0001_username_unique": {
    async up(db: Kysely<unknown>) {
      // Usernames appear in public URLs: one per user, compared case-sensitively because the
      // onboarding rules only allow lowercase.
      await db.schema
        .createIndex("user_username_unique")
        .ifNotExists()
        .on("user")
        .column("username")
        .unique()
        .execute();
    },
  },
  "0002_packyard_meta": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("packyard_meta")
        .ifNotExists()
        .addColumn("key", "varchar(100)", (c) => c.primaryKey())
        .addColumn("value", "text", (c) => c.notNull())
        .addColumn("updated_at", "varchar(40)", (c) => c.notNull().defaultTo(sql`'1970-01-01T00:00:00.000Z'`))
        .execute();
    },
  },
  "0003_projects_releases_files": {
    async up(db: Kysely<unknown>) {
      // Sizes and counters are bigint: files and download totals outgrow 32 bits.
      await db.schema
        .createTable("project")
        .addColumn("id", "varchar(32)", (c) => c.primaryKey())
        .addColumn("owner_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
        .addColumn("slug", "varchar(64)", (c) => c.notNull())
        .addColumn("name", "varchar(100)", (c) => c.notNull())
        .addColumn("description", "text")
        .addColumn("visibility", "varchar(10)", (c) => c.notNull())
        .addColumn("homepage", "text")
        .addColumn("source_url", "text")
        .addColumn("license", "varchar(100)")
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .addColumn("updated_at", "varchar(30)", (c) => c.notNull())
        .addUniqueConstraint("project_owner_slug_unique", ["owner_id", "slug"])
        .execute();
      await db.schema
        .createTable("release")
        .addColumn("id", "varchar(8)", (c) => c.primaryKey())
        .addColumn("project_id", "varchar(32)", (c) =>
          c.notNull().references("project.id").onDelete("cascade"),
        )
        .addColumn("version", "varchar(128)", (c) => c.notNull())
        .addColumn("title", "varchar(200)")
        .addColumn("notes", "text")
        .addColumn("yanked", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("yanked_reason", "varchar(500)")
        .addColumn("yanked_at", "varchar(30)")
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .addColumn("published_at", "varchar(30)", (c) => c.notNull())
        .addUniqueConstraint("release_project_version_unique", ["project_id", "version"])
        .execute();
      await db.schema
        .createIndex("release_project_created")
        .on("release")
        .columns(["project_id", "created_at"])
        .execute();
      await db.schema
        .createTable("blob")
        .addColumn("sha256", "varchar(64)", (c) => c.primaryKey())
        .addColumn("size", "bigint", (c) => c.notNull())
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("release_file")
        .addColumn("id", "varchar(32)", (c) => c.primaryKey())
        .addColumn("release_id", "varchar(8)", (c) =>
          c.notNull().references("release.id").onDelete("cascade"),
        )
        .addColumn("filename", "varchar(255)", (c) => c.notNull())
        .addColumn("size", "bigint", (c) => c.notNull())
        .addColumn("sha256", "varchar(64)", (c) => c.notNull().references("blob.sha256"))
        .addColumn("sha512", "varchar(128)", (c) => c.notNull())
        .addColumn("md5", "varchar(32)", (c) => c.notNull())
        .addColumn("sha1", "varchar(40)", (c) => c.notNull())
        .addColumn("kind", "varchar(20)", (c) => c.notNull())
        .addColumn("content_type", "varchar(200)", (c) => c.notNull())
        .addColumn("download_count", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .addUniqueConstraint("release_file_release_filename_unique", ["release_id", "filename"])
        .execute();
      await db.schema.createIndex("release_file_sha256").on("release_file").column("sha256").execute();
      // Downloads per owner and month: usage and plan limits read this.
      await db.schema
        .createTable("download_month")
        .addColumn("owner_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
        .addColumn("month", "varchar(7)", (c) => c.notNull())
        .addColumn("downloads", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("bytes", "bigint", (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint("download_month_pk", ["owner_id", "month"])
        .execute();
    },
  },
  "0004_signing_keys_and_apt": {
    async up(db: Kysely<unknown>) {
      // Keys are numbered per project; the unique generation makes creating the first key (or
      // the next one, on rotation) race-free: one writer wins, the others read its key.
      await db.schema
        .createTable("signing_key")
        .addColumn("id", "varchar(32)", (c) => c.primaryKey())
        .addColumn("project_id", "varchar(32)", (c) =>
          c.notNull().references("project.id").onDelete("cascade"),
        )
        .addColumn("generation", "integer", (c) => c.notNull())
        .addColumn("algorithm", "varchar(20)", (c) => c.notNull())
        .addColumn("fingerprint", "varchar(64)", (c) => c.notNull())
        .addColumn("public_key", "text", (c) => c.notNull())
        .addColumn("private_key", "text", (c) => c.notNull())
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .addColumn("retire_at", "varchar(30)")
        .addUniqueConstraint("signing_key_project_generation_unique", ["project_id", "generation"])
        .execute();
      // A .deb's metadata, parsed once at upload; the index is built from these stanzas.
      await db.schema
        .createTable("deb_package")
        .addColumn("file_id", "varchar(32)", (c) =>
          c.primaryKey().references("release_file.id").onDelete("cascade"),
        )
        .addColumn("project_id", "varchar(32)", (c) =>
          c.notNull().references("project.id").onDelete("cascade"),
        )
        .addColumn("suite", "varchar(64)", (c) => c.notNull())
        .addColumn("component", "varchar(64)", (c) => c.notNull())
        .addColumn("name", "varchar(200)", (c) => c.notNull())
        .addColumn("version", "varchar(200)", (c) => c.notNull())
        .addColumn("architecture", "varchar(40)", (c) => c.notNull())
        .addColumn("pool_path", "text", (c) => c.notNull())
        .addColumn("stanza", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("deb_package_project_suite")
        .on("deb_package")
        .columns(["project_id", "suite"])
        .execute();
      await db.schema
        .createIndex("deb_package_pool_path")
        .on("deb_package")
        .columns(["project_id", "pool_path"])
        .execute();
      // Published index generations. Every file of a generation is content-addressed in the
      // index store; the newest generation of a suite is what InRelease serves.
      await db.schema
        .createTable("apt_generation")
        .addColumn("id", "varchar(32)", (c) => c.primaryKey())
        .addColumn("project_id", "varchar(32)", (c) =>
          c.notNull().references("project.id").onDelete("cascade"),
        )
        .addColumn("suite", "varchar(64)", (c) => c.notNull())
        .addColumn("number", "integer", (c) => c.notNull())
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .addUniqueConstraint("apt_generation_unique", ["project_id", "suite", "number"])
        .execute();
      await db.schema
        .createTable("apt_index_file")
        .addColumn("generation_id", "varchar(32)", (c) =>
          c.notNull().references("apt_generation.id").onDelete("cascade"),
        )
        .addColumn("path", "varchar(300)", (c) => c.notNull())
        .addColumn("sha256", "varchar(64)", (c) => c.notNull())
        .addColumn("sha512", "varchar(128)", (c) => c.notNull())
        .addColumn("size", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("apt_index_file_pk", ["generation_id", "path"])
        .execute();
      await db.schema.createIndex("apt_index_file_sha256").on("apt_index_file").column("sha256").execute();
      await db.schema.createIndex("apt_index_file_sha512").on("apt_index_file").column("sha512").execute();
    },
  },
  "0005_generic_repository_generations": {
    async up(db: Kysely<unknown>) {
      // APT and YUM publish the same way: generations of content-addressed index files per
      // repository (an APT suite, a YUM group), switched by one row.
      await db.schema
        .createTable("repo_generation")
        .addColumn("id", "varchar(32)", (c) => c.primaryKey())
        .addColumn("project_id", "varchar(32)", (c) =>
          c.notNull().references("project.id").onDelete("cascade"),
        )
        .addColumn("format", "varchar(10)", (c) => c.notNull())
        .addColumn("name", "varchar(64)", (c) => c.notNull())
        .addColumn("number", "integer", (c) => c.notNull())
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .addUniqueConstraint("repo_generation_unique", ["project_id", "format", "name", "number"])
        .execute();
      await db.schema
        .createTable("repo_index_file")
        .addColumn("generation_id", "varchar(32)", (c) =>
          c.notNull().references("repo_generation.id").onDelete("cascade"),
        )
        .addColumn("path", "varchar(300)", (c) => c.notNull())
        .addColumn("sha256", "varchar(64)", (c) => c.notNull())
        .addColumn("sha512", "varchar(128)", (c) => c.notNull())
        .addColumn("size", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("repo_index_file_pk", ["generation_id", "path"])
        .execute();
      await db.schema.createIndex("repo_index_file_sha256").on("repo_index_file").column("sha256").execute();
      await db.schema.createIndex("repo_index_file_sha512").on("repo_index_file").column("sha512").execute();
      await sql`INSERT INTO repo_generation (id, project_id, format, name, number, created_at)
        SELECT id, project_id, 'apt', suite, number, created_at FROM apt_generation`.execute(db);
      await sql`INSERT INTO repo_index_file (generation_id, path, sha256, sha512, size)
        SELECT generation_id, path, sha256, sha512, size FROM apt_index_file`.execute(db);
      await db.schema.dropTable("apt_index_file").execute();
      await db.schema.dropTable("apt_generation").execute();
    },
  },
  "0006_yum_packages": {
    async up(db: Kysely<unknown>) {
      // An .rpm's metadata, read once at upload (from the signed file Packyard stores), with
      // its primary, filelists and other fragments rendered then.
      await db.schema
        .createTable("yum_package")
        .addColumn("file_id", "varchar(32)", (c) =>
          c.primaryKey().references("release_file.id").onDelete("cascade"),
        )
        .addColumn("project_id", "varchar(32)", (c) =>
          c.notNull().references("project.id").onDelete("cascade"),
        )
        .addColumn("repo_group", "varchar(64)", (c) => c.notNull())
        .addColumn("name", "varchar(200)", (c) => c.notNull())
        .addColumn("epoch", "integer", (c) => c.notNull())
        .addColumn("version", "varchar(200)", (c) => c.notNull())
        .addColumn("release", "varchar(200)", (c) => c.notNull())
        .addColumn("arch", "varchar(40)", (c) => c.notNull())
        .addColumn("location", "text", (c) => c.notNull())
        .addColumn("primary_xml", "text", (c) => c.notNull())
        .addColumn("filelists_xml", "text", (c) => c.notNull())
        .addColumn("other_xml", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("yum_package_project_group")
        .on("yum_package")
        .columns(["project_id", "repo_group"])
        .execute();
    },
  },
  "0007_package_index_changes": {
    async up(db: Kysely<unknown>) {
      // Every change to the packages a project's repositories list — an upload, a file or release
      // deleted, a yank or unyank — bumps project.index_revision and names the release it touched,
      // in the same transaction. A publisher holding the package list as of revision R then reads
      // only the releases changed since R, not every package of the project.
      await db.schema
        .alterTable("project")
        .addColumn("index_revision", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createTable("package_index_change")
        .addColumn("project_id", "varchar(32)", (c) =>
          c.notNull().references("project.id").onDelete("cascade"),
        )
        .addColumn("revision", "integer", (c) => c.notNull())
        // Not a reference: a deleted release is still named, so its packages leave the index.
        .addColumn("release_id", "varchar(32)", (c) => c.notNull())
        .addPrimaryKeyConstraint("package_index_change_pk", ["project_id", "revision"])
        .execute();
    },
  },
  "0008_published_revision": {
    async up(db: Kysely<unknown>) {
      // The index_revision the project's repositories were last published from. At start-up a
      // project whose index_revision is ahead (a crash between a commit and its publish) is
      // published again. Existing projects start at 0 and are published once.
      await db.schema
        .alterTable("project")
        .addColumn("published_revision", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
  "0009_contact_message": {
    async up(db: Kysely<unknown>) {
      // Messages from the contact form, stored before they are mailed so a failed mail loses
      // nothing: mailed_at stays empty until CONTACT_EMAIL has accepted it, and the periodic
      // maintenance pass tries again. client_address counts the messages per address and hour.
      await db.schema
        .createTable("contact_message")
        .addColumn("id", "varchar(32)", (c) => c.primaryKey())
        .addColumn("type", "varchar(20)", (c) => c.notNull())
        .addColumn("name", "varchar(100)", (c) => c.notNull())
        .addColumn("email", "varchar(320)", (c) => c.notNull())
        .addColumn("subject", "varchar(200)", (c) => c.notNull())
        .addColumn("message", "text", (c) => c.notNull())
        .addColumn("client_address", "varchar(64)", (c) => c.notNull())
        .addColumn("created_at", "varchar(32)", (c) => c.notNull())
        .addColumn("mailed_at", "varchar(32)")
        .addColumn("mail_attempts", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("mail_error", "text")
        .execute();
      await db.schema
        .createIndex("contact_message_address_time")
        .on("contact_message")
        .columns(["client_address", "created_at"])
        .execute();
      await db.schema
        .createIndex("contact_message_mailed")
        .on("contact_message")
        .column("mailed_at")
        .execute();
    },
  },
  "0010_username_history": {
    async up(db: Kysely<unknown>) {
      // Usernames may now be changed, and hold capitals and underscores (spec §5). A user's old
      // names: for USERNAME_HOLD_DAYS after released_at the old name's URLs redirect to the user's
      // current name and nobody else can take it (docs/decisions/014-username-changes.md).
      // name_key is the name lowercased: one row per name, whoever held it last.
      await db.schema
        .createTable("username_history")
        .addColumn("name_key", "varchar(30)", (c) => c.primaryKey())
        .addColumn("username", "varchar(30)", (c) => c.notNull())
        .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
        .addColumn("released_at", "varchar(30)", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("username_history_user").on("username_history").column("user_id").execute();
      // URLs find usernames whatever their case, so two users may not differ only by case. Every
      // name so far passed onboarding's lowercase-only rule, so no existing pair conflicts.
      await db.schema
        .createIndex("user_username_lower_unique")
        .on("user")
        .unique()
        .expression(sql`lower(username)`)
        .execute();
    },
  },
  "0011_project_apt_label": {
    async up(db: Kysely<unknown>) {
      // The Label of a project's APT Release files was "{username}/{slug}", read at each publish.
      // apt refuses an update whose Label changed ("changed its 'Label' value"), so a username
      // change would break every machine set up before it. When the username changes, the label
      // of each project already published is fixed here; NULL: "{username}/{slug}" as before
      // (docs/decisions/014-username-changes.md).
      await db.schema.alterTable("project").addColumn("apt_label", "varchar(200)").execute();
    },
  },
  "0012_plan_override_and_stripe_events": {
    async up(db: Kysely<unknown>) {
      // The plan an operator set from the command line (users set-plan), until a date or for
      // good (until NULL). While valid it wins over any Stripe subscription (account-plan.ts).
      await db.schema
        .createTable("plan_override")
        .addColumn("user_id", "text", (c) => c.primaryKey().references("user.id").onDelete("cascade"))
        .addColumn("plan", "varchar(20)", (c) => c.notNull())
        .addColumn("until", "varchar(30)")
        .addColumn("set_at", "varchar(30)", (c) => c.notNull())
        .execute();
      // Every Stripe webhook event applied, by its id: a replayed or retried event is answered
      // without being applied twice (server/billing/webhook.ts).
      await db.schema
        .createTable("stripe_event")
        .addColumn("id", "varchar(255)", (c) => c.primaryKey())
        .addColumn("type", "varchar(100)", (c) => c.notNull())
        .addColumn("applied_at", "varchar(30)", (c) => c.notNull())
        .execute();
    },
  },
  "0013_download_allowance_notices": {
    async up(db: Kysely<unknown>) {
      // The download-allowance warning already mailed to the owner for the month: 0 none yet,
      // 80 or 100 (percent of the plan's allowance). One mail per level and month (usage.ts).
      await db.schema
        .alterTable("download_month")
        .addColumn("notified_percent", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
  "0014_released_usernames": {
    async up(db: Kysely<unknown>) {
      // The names of deleted accounts (their current one and those they still held): nobody may
      // take them for USERNAME_HOLD_DAYS, so a newcomer cannot publish at the /dl and /releases
      // URLs that machines and scripts of the deleted account still use. They redirect nowhere.
      await db.schema
        .createTable("released_username")
        .addColumn("name_key", "varchar(30)", (c) => c.primaryKey())
        .addColumn("username", "varchar(30)", (c) => c.notNull())
        .addColumn("released_at", "varchar(30)", (c) => c.notNull())
        .execute();
    },
  },
  "0015_gc_mark_and_sweep": gcMarkAndSweep,
  "0016_yum_entry_pins": {
    async up(db: Kysely<unknown>) {
      // Which generation's repomd.xml each client address was last served, shared by every
      // server on the database, so a client's repomd.xml.asc matches its repomd.xml whichever
      // server answers it (decision 013; http/yum-entry-pins.ts). Rows live for seconds; the
      // collect-garbage job removes expired ones.
      await db.schema
        .createTable("yum_entry_pin")
        .addColumn("client_key", "varchar(64)", (c) => c.notNull())
        .addColumn("repository", "varchar(100)", (c) => c.notNull())
        .addColumn("generation_id", "varchar(64)", (c) => c.notNull())
        .addColumn("number", "bigint", (c) => c.notNull())
        .addColumn("pinned_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("yum_entry_pin_pk", ["client_key", "repository"])
        .execute();
      await db.schema
        .createIndex("yum_entry_pin_pinned_at")
        .on("yum_entry_pin")
        .column("pinned_at")
        .execute();
    },
  },
  "0017_signing_key_lifecycle": {
    async up(db: Kysely<unknown>) {
      // Keys that never lapse (decision 027): a key's OpenPGP expiry and the expiry notices
      // mailed for it (once each), and the project's repository settings: the expiry of new
      // keys, APT's Valid-Until period, Origin and Codename (Label is apt_label), and which keys
      // signed the repositories last published, so a change of signers is re-signed.
      await db.schema.alterTable("signing_key").addColumn("expires_at", "varchar(30)").execute();
      await db.schema.alterTable("signing_key").addColumn("notice_30_at", "varchar(30)").execute();
      await db.schema.alterTable("signing_key").addColumn("notice_7_at", "varchar(30)").execute();
      await db.schema.alterTable("project").addColumn("key_expiry_days", "integer").execute();
      await db.schema.alterTable("project").addColumn("apt_valid_until_days", "integer").execute();
      await db.schema.alterTable("project").addColumn("apt_origin", "varchar(100)").execute();
      await db.schema.alterTable("project").addColumn("apt_codename", "varchar(64)").execute();
      await db.schema.alterTable("project").addColumn("signed_by", "text").execute();
    },
  },
  "0018_imports": {
    async up(db: Kysely<unknown>) {
      // Imports into a project (server/imports, decision 028): what they read, their progress,
      // their per-release errors and summary. Credentials are a server-secret envelope
      // (credentials), never answered with. The job that runs one is keyed by its id.
      await db.schema
        .createTable("import")
        .addColumn("id", "varchar(32)", (c) => c.primaryKey())
        .addColumn("project_id", "varchar(32)", (c) =>
          c.notNull().references("project.id").onDelete("cascade"),
        )
        .addColumn("started_by", "text", (c) => c.references("user.id").onDelete("set null"))
        .addColumn("kind", "varchar(30)", (c) => c.notNull())
        .addColumn("source", "text", (c) => c.notNull())
        .addColumn("credentials", "text")
        .addColumn("status", "varchar(20)", (c) => c.notNull())
        .addColumn("progress", "text", (c) => c.notNull())
        .addColumn("errors", "text", (c) => c.notNull())
        .addColumn("summary", "text")
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .addColumn("started_at", "varchar(30)")
        .addColumn("finished_at", "varchar(30)")
        .execute();
      await db.schema
        .createIndex("import_project_created")
        .on("import")
        .columns(["project_id", "created_at"])
        .execute();
    },
  },
  "0020_rpm_signed_by": {
    async up(db: Kysely<unknown>) {
      // Which key signed each stored .rpm (decision 030): after a rotation the resign-rpms job
      // re-signs, with the newest key, every package another key signed; null: signed before
      // this was recorded (re-signed too).
      await db.schema.alterTable("yum_package").addColumn("signed_by", "varchar(64)").execute();
      await db.schema
        .createIndex("yum_package_project_signed_by")
        .on("yum_package")
        .columns(["project_id", "signed_by"])
        .execute();
    },
  },
  "0021_audit_event": {
    async up(db: Kysely<unknown>) {
      // The audit log (server/audit, decision 031): one row per recorded action, shown in its
      // owner's account log and, with a project, in the project's. No foreign keys to the
      // project or the actor: an entry outlives a deleted project, key or user (the names are
      // copied in); it goes with its owner's account, and after 365 days (audit-retention job).
      await db.schema
        .createTable("audit_event")
        .addColumn("id", "varchar(32)", (c) => c.primaryKey())
        .addColumn("owner_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
        .addColumn("project_id", "varchar(32)")
        .addColumn("project_slug", "varchar(64)")
        .addColumn("actor_kind", "varchar(10)", (c) => c.notNull())
        .addColumn("actor_user_id", "text")
        .addColumn("actor_username", "varchar(64)")
        .addColumn("actor_key_id", "text")
        .addColumn("actor_key_name", "text")
        .addColumn("actor_key_start", "varchar(32)")
        .addColumn("action", "varchar(40)", (c) => c.notNull())
        .addColumn("target", "text")
        .addColumn("details", "text", (c) => c.notNull())
        .addColumn("address", "varchar(64)")
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("audit_event_owner_created")
        .on("audit_event")
        .columns(["owner_id", "created_at", "id"])
        .execute();
      await db.schema
        .createIndex("audit_event_project_created")
        .on("audit_event")
        .columns(["project_id", "created_at", "id"])
        .execute();
      await db.schema.createIndex("audit_event_created").on("audit_event").column("created_at").execute();
    },
  },
  "0022_webhooks": {
    async up(db: Kysely<unknown>) {
      // Webhooks (server/webhooks, decision 032). The secret is sealed with the server secret;
      // failing_since starts a failure streak (3 days of it disables the webhook).
      await db.schema
        .createTable("webhook")
        .addColumn("id", "varchar(32)", (c) => c.primaryKey())
        .addColumn("project_id", "varchar(32)", (c) =>
          c.notNull().references("project.id").onDelete("cascade"),
        )
        .addColumn("url", "text", (c) => c.notNull())
        .addColumn("description", "varchar(200)")
        .addColumn("events", "text", (c) => c.notNull())
        .addColumn("secret", "text", (c) => c.notNull())
        .addColumn("active", "integer", (c) => c.notNull())
        .addColumn("disabled_reason", "varchar(40)")
        .addColumn("failing_since", "varchar(30)")
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .addColumn("updated_at", "varchar(30)", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("webhook_project").on("webhook").column("project_id").execute();
      // One row per event sent to a webhook; the body is kept as sent, so a redelivery and every
      // retry send the same bytes (with a new signature time).
      await db.schema
        .createTable("webhook_delivery")
        .addColumn("id", "varchar(32)", (c) => c.primaryKey())
        .addColumn("webhook_id", "varchar(32)", (c) =>
          c.notNull().references("webhook.id").onDelete("cascade"),
        )
        .addColumn("event", "varchar(40)", (c) => c.notNull())
        .addColumn("body", "text", (c) => c.notNull())
        .addColumn("state", "varchar(10)", (c) => c.notNull())
        .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("next_attempt_at", "varchar(30)")
        .addColumn("claimed_at", "varchar(30)")
        .addColumn("redelivery_of", "varchar(32)")
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .addColumn("finished_at", "varchar(30)")
        .execute();
      await db.schema
        .createIndex("webhook_delivery_webhook")
        .on("webhook_delivery")
        .columns(["webhook_id", "created_at"])
        .execute();
      await db.schema
        .createIndex("webhook_delivery_due")
        .on("webhook_delivery")
        .columns(["state", "next_attempt_at"])
        .execute();
      await db.schema
        .createTable("webhook_attempt")
        .addColumn("id", "varchar(32)", (c) => c.primaryKey())
        .addColumn("delivery_id", "varchar(32)", (c) =>
          c.notNull().references("webhook_delivery.id").onDelete("cascade"),
        )
        .addColumn("attempted_at", "varchar(30)", (c) => c.notNull())
        .addColumn("status", "integer")
        .addColumn("duration_ms", "integer", (c) => c.notNull())
        .addColumn("response_excerpt", "text")
        .addColumn("error", "text")
        .execute();
      await db.schema
        .createIndex("webhook_attempt_delivery")
        .on("webhook_attempt")
        .column("delivery_id")
        .execute();
      // When each package change was made: repository.published reports the time from the
      // oldest change a publish includes to its index being served. Null for older rows.
      await db.schema.alterTable("package_index_change").addColumn("changed_at", "varchar(30)").execute();
    },
  },
  "0023_download_stats": {
    async up(db: Kysely<unknown>) {
      // Download statistics (decision 033): per release file, UTC day, kind of client and the
      // distribution it was fetched for (the APT suite, the dnf client's distribution or the YUM
      // group; '' when not known), the files delivered whole and the bytes sent. Written in
      // batches from memory (downloads/counts.ts, usage.ts). The file's version and name are copied
      // in, with no foreign key to it: a project's history keeps the downloads of files since
      // deleted. Rows go with their project.
      await db.schema
        .createTable("download_stat")
        .addColumn("project_id", "varchar(32)", (c) =>
          c.notNull().references("project.id").onDelete("cascade"),
        )
        .addColumn("file_id", "varchar(32)", (c) => c.notNull())
        .addColumn("version", "varchar(128)", (c) => c.notNull())
        .addColumn("filename", "varchar(255)", (c) => c.notNull())
        .addColumn("day", "varchar(10)", (c) => c.notNull())
        .addColumn("client", "varchar(10)", (c) => c.notNull())
        .addColumn("distribution", "varchar(64)", (c) => c.notNull())
        .addColumn("downloads", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("bytes", "bigint", (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint("download_stat_pk", ["file_id", "day", "client", "distribution"])
        .execute();
      await db.schema
        .createIndex("download_stat_project_day")
        .on("download_stat")
        .columns(["project_id", "day"])
        .execute();
    },
  },
  "0024_retention_policy": {
    async up(db: Kysely<unknown>) {
      // Retention rules per project (decision 034), off until the owner turns them on; the
      // last run that deleted something (its versions as a JSON array), shown in the settings.
      await db.schema
        .createTable("retention_policy")
        .addColumn("project_id", "varchar(32)", (c) =>
          c.primaryKey().references("project.id").onDelete("cascade"),
        )
        .addColumn("enabled", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("keep_releases", "integer", (c) => c.notNull())
        .addColumn("keep_newest_per_major", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("min_age_days", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("count_yanked", "integer", (c) => c.notNull().defaultTo(1))
        .addColumn("updated_at", "varchar(30)", (c) => c.notNull())
        .addColumn("last_run_at", "varchar(30)")
        .addColumn("last_run_removed", "text")
        .execute();
    },
  },
  "0025_serving_change_notifications": {
    async up(db: Kysely<unknown>) {
      // PostgreSQL only: every change to a table that /dl answers from notifies the
      // packyard_changes channel at commit, so every server process drops its serving cache
      // (downloads/change-listener.ts, decision 039). SQLite has one server process, which sees its
      // own writes, and its data_version shows another process's commits.
      if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
      await sql`
        create or replace function packyard_notify_change() returns trigger language plpgsql as $$
        begin
          perform pg_notify('packyard_changes', TG_TABLE_NAME);
          return null;
        end $$`.execute(db);
      for (const table of SERVED_TABLES) {
        const name = sql.raw(`"${table}"`);
        const trigger = sql.raw(`"packyard_changed_${table}"`);
        const events =
          table === "release_file"
            ? "insert or delete or truncate"
            : "insert or update or delete or truncate";
        await sql`create trigger ${trigger} after ${sql.raw(events)} on ${name} for each statement execute function packyard_notify_change()`.execute(
          db,
        );
      }
      // Download counts are added to release_file rows all day; they change nothing served.
      await sql`
        create trigger "packyard_changed_release_file_row" after update on "release_file" for each row
        when ((to_jsonb(old) - 'download_count') is distinct from (to_jsonb(new) - 'download_count'))
        execute function packyard_notify_change()`.execute(db);
    },
  },
  "0026_organizations": {
    async up(db: Kysely<unknown>) {
      // Organizations (decision 040). Each one is also an owner account: a row in `user` with the
      // same id, whose username is the organization's slug (so one unique index keeps users and
      // organizations from sharing a name, and every owner_id, /dl and /releases lookup works for
      // both) and which can never sign in (no credentials; auth.ts refuses it a session).
      await db.schema
        .createTable("organization")
        .addColumn("id", "text", (c) => c.primaryKey().references("user.id").onDelete("cascade"))
        .addColumn("slug", "varchar(64)", (c) => c.notNull())
        .addColumn("name", "varchar(200)", (c) => c.notNull())
        .addColumn("created_by", "text", (c) => c.references("user.id").onDelete("set null"))
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .addColumn("updated_at", "varchar(30)", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("org_member")
        .addColumn("org_id", "text", (c) => c.notNull().references("organization.id").onDelete("cascade"))
        .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
        .addColumn("role", "varchar(16)", (c) => c.notNull())
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .addPrimaryKeyConstraint("org_member_pk", ["org_id", "user_id"])
        .execute();
      await db.schema.createIndex("org_member_user").on("org_member").column("user_id").execute();
      // An invitation by email, valid 7 days; its id is the secret in the mailed link.
      await db.schema
        .createTable("org_invitation")
        .addColumn("id", "varchar(64)", (c) => c.primaryKey())
        .addColumn("org_id", "text", (c) => c.notNull().references("organization.id").onDelete("cascade"))
        .addColumn("email", "varchar(320)", (c) => c.notNull())
        .addColumn("role", "varchar(16)", (c) => c.notNull())
        .addColumn("invited_by", "text", (c) => c.references("user.id").onDelete("set null"))
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .addColumn("expires_at", "varchar(30)", (c) => c.notNull())
        .addColumn("accepted_at", "varchar(30)")
        .addColumn("accepted_by", "text", (c) => c.references("user.id").onDelete("set null"))
        .addColumn("revoked_at", "varchar(30)")
        .execute();
      await db.schema.createIndex("org_invitation_org").on("org_invitation").column("org_id").execute();
      // A project moved to another owner: its old owner's URLs (/dl, /releases) redirect to the new
      // one while that owner has no project of the slug again.
      await db.schema
        .createTable("project_transfer")
        .addColumn("id", "varchar(32)", (c) => c.primaryKey())
        .addColumn("project_id", "varchar(32)", (c) =>
          c.notNull().references("project.id").onDelete("cascade"),
        )
        .addColumn("from_owner_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
        .addColumn("slug", "varchar(64)", (c) => c.notNull())
        .addColumn("transferred_at", "varchar(30)", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("project_transfer_from")
        .on("project_transfer")
        .columns(["from_owner_id", "slug"])
        .execute();
      if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
      // What /dl answers depends on these too (the serving cache, migration 0025).
      for (const table of ["organization", "org_member", "project_transfer"]) {
        await sql`create trigger ${sql.raw(`"packyard_changed_${table}"`)} after insert or update or delete or truncate on ${sql.raw(`"${table}"`)} for each statement execute function packyard_notify_change()`.execute(
          db,
        );
      }
    },
  },
  "0027_release_file_storage_index": {
    async up(db: Kysely<unknown>) {
      // The storage an owner uses (billing/usage.ts storageBytes), summed on every upload: from
      // this index alone instead of a row read per file (issue 16; 10,000 files: 2.8 → 0.4 ms).
      await db.schema
        .createIndex("release_file_release_size")
        .on("release_file")
        .columns(["release_id", "size"])
        .execute();
    },
  },
  "0028_api_key_change_notifications": {
    async up(db: Kysely<unknown>) {
      // PostgreSQL only: a key deleted, disabled or changed notifies packyard_changes (payload
      // "apikey"), so every server process drops the API keys it checked (auth/key-checks.ts,
      // decision 050). The updates that record a key's use change none of these columns.
      if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
      await sql`
        create trigger "packyard_changed_apikey"
        after update of "key", "enabled", "expiresAt", "permissions", "referenceId" or delete or truncate
        on "apikey" for each statement execute function packyard_notify_change()`.execute(db);
    },
  },
  "0029_import_attempts": {
    async up(db: Kysely<unknown>) {
      // How many times an import's job has started (server/imports/run.ts): kept on the row so the
      // bound on attempts holds across restarts, and an import that takes the server down is
      // not resumed for ever.
      await db.schema
        .alterTable("import")
        .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
  "0030_webhook_circuit": {
    async up(db: Kysely<unknown>) {
      // A webhook's receiver that does not answer (server/webhooks, decision 059): the attempts in
      // a row that got no answer, the time until which its deliveries wait once they reached the
      // limit, and the claim of the one attempt in flight for it across servers.
      const webhook = () => db.schema.alterTable("webhook");
      await webhook()
        .addColumn("consecutive_timeouts", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      await webhook().addColumn("paused_until", "varchar(30)").execute();
      await webhook().addColumn("attempt_claimed_at", "varchar(30)").execute();
    },
  },
  "0031_retention_delete_latest": {
    async up(db: Kysely<unknown>) {
      // Whether the retention rules may delete the release `latest` resolves to (decision 064):
      // off for every project, those with stored rules included, so no rule does it unasked.
      await db.schema
        .alterTable("retention_policy")
        .addColumn("delete_latest", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
  "0032_drop_serving_change_triggers": {
    async up(db: Kysely<unknown>) {
      // PostgreSQL only: the serving caches are dropped by domain events, which also notify the
      // packyard_changes channel (downloads/change-listener.ts, decision 074): the triggers of
      // migrations 0025, 0026 and 0028 and their function are no longer used.
      if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
      const triggers: [string, string][] = [
        ...SERVED_TABLES.map((table): [string, string] => [`packyard_changed_${table}`, table]),
        ["packyard_changed_release_file_row", "release_file"],
        ...["organization", "org_member", "project_transfer"].map((table): [string, string] => [
          `packyard_changed_${table}`,
          table,
        ]),
        ["packyard_changed_apikey", "apikey"],
      ];
      for (const [trigger, table] of triggers) {
        await sql`drop trigger if exists ${sql.raw(`"${trigger}"`)} on ${sql.raw(`"${table}"`)}`.execute(db);
      }
      await sql`drop function if exists packyard_notify_change()`.execute(db);
    },
  },
  "0033_entitlements": {
    async up(db: Kysely<unknown>) {
      // Entitlement tokens (server/entitlements, issue 40): a customer's read-only token for
      // chosen projects of one account, with its limits. Only the secret's sha256 is kept; after
      // a rotation the previous one works until previous_valid_until. `downloads` counts the
      // files answered with the token (the maxDownloads limit); `month`/`month_bytes` the bytes
      // of the current UTC month (the maxBytesPerMonth limit), both kept on the row so a request
      // reads its limits and usage in the one statement that finds the token.
      await db.schema
        .createTable("entitlement")
        .addColumn("id", "varchar(32)", (c) => c.primaryKey())
        .addColumn("owner_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
        .addColumn("org_wide", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("name", "varchar(100)", (c) => c.notNull())
        .addColumn("note", "varchar(500)")
        .addColumn("enabled", "integer", (c) => c.notNull().defaultTo(1))
        .addColumn("token_hash", "varchar(64)", (c) => c.notNull().unique())
        .addColumn("token_start", "varchar(16)", (c) => c.notNull())
        .addColumn("previous_token_hash", "varchar(64)")
        .addColumn("previous_valid_until", "varchar(30)")
        .addColumn("valid_from", "varchar(30)")
        .addColumn("valid_until", "varchar(30)")
        .addColumn("max_downloads", "bigint")
        .addColumn("max_bytes_per_month", "bigint")
        .addColumn("suites", "text")
        .addColumn("groups", "text")
        .addColumn("version_range", "varchar(200)")
        .addColumn("downloads", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("month", "varchar(7)")
        .addColumn("month_bytes", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("last_used_at", "varchar(30)")
        .addColumn("last_used_address", "varchar(64)")
        .addColumn("last_used_client", "varchar(200)")
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .addColumn("updated_at", "varchar(30)", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("entitlement_owner").on("entitlement").column("owner_id").execute();
      await db.schema
        .createIndex("entitlement_previous_token")
        .on("entitlement")
        .column("previous_token_hash")
        .execute();
      await db.schema
        .createTable("entitlement_project")
        .addColumn("entitlement_id", "varchar(32)", (c) =>
          c.notNull().references("entitlement.id").onDelete("cascade"),
        )
        .addColumn("project_id", "varchar(32)", (c) =>
          c.notNull().references("project.id").onDelete("cascade"),
        )
        .addPrimaryKeyConstraint("entitlement_project_pk", ["entitlement_id", "project_id"])
        .execute();
      await db.schema
        .createIndex("entitlement_project_project")
        .on("entitlement_project")
        .column("project_id")
        .execute();
      // Usage per token and UTC day, written with the download counts (downloads/counts.ts).
      await db.schema
        .createTable("entitlement_usage")
        .addColumn("entitlement_id", "varchar(32)", (c) =>
          c.notNull().references("entitlement.id").onDelete("cascade"),
        )
        .addColumn("day", "varchar(10)", (c) => c.notNull())
        .addColumn("downloads", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("installs", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("bytes", "bigint", (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint("entitlement_usage_pk", ["entitlement_id", "day"])
        .execute();
      // Distinct machines per token and day: a hash of the address and client with a salt of
      // that day (no address is kept), removed with the download log's retention.
      await db.schema
        .createTable("entitlement_machine")
        .addColumn("entitlement_id", "varchar(32)", (c) =>
          c.notNull().references("entitlement.id").onDelete("cascade"),
        )
        .addColumn("day", "varchar(10)", (c) => c.notNull())
        .addColumn("machine", "varchar(64)", (c) => c.notNull())
        .addPrimaryKeyConstraint("entitlement_machine_pk", ["entitlement_id", "day", "machine"])
        .execute();
    },
  },
  "0034_trusted_publishing": {
    async up(db: Kysely<unknown>) {
      // Trusted publishing (server/trusted-publishing, docs/ci/): the CI workflows a project
      // trusts. `repository` is GitHub's owner/name or GitLab's project path; workflow,
      // environment and ref (a pattern) narrow it when set.
      await db.schema
        .createTable("trusted_publisher")
        .addColumn("id", "varchar(32)", (c) => c.primaryKey())
        .addColumn("project_id", "varchar(32)", (c) =>
          c.notNull().references("project.id").onDelete("cascade"),
        )
        .addColumn("provider", "varchar(10)", (c) => c.notNull())
        .addColumn("issuer", "varchar(300)", (c) => c.notNull())
        .addColumn("repository", "varchar(255)", (c) => c.notNull())
        .addColumn("workflow", "varchar(255)")
        .addColumn("environment", "varchar(255)")
        .addColumn("ref", "varchar(200)")
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .addColumn("last_used_at", "varchar(30)")
        .execute();
      await db.schema
        .createIndex("trusted_publisher_project")
        .on("trusted_publisher")
        .column("project_id")
        .execute();
      // Found by the claims of an exchange: the issuer and the repository, lowercased.
      await db.schema
        .createIndex("trusted_publisher_repository")
        .on("trusted_publisher")
        .columns(["issuer", "repository"])
        .execute();
      // ID tokens already exchanged, by issuer and jti, kept until they expire: one is never
      // exchanged twice.
      await db.schema
        .createTable("oidc_token_seen")
        .addColumn("issuer", "varchar(300)", (c) => c.notNull())
        .addColumn("jti", "varchar(255)", (c) => c.notNull())
        .addColumn("expires_at", "varchar(30)", (c) => c.notNull())
        .addPrimaryKeyConstraint("oidc_token_seen_pk", ["issuer", "jti"])
        .execute();
      await db.schema
        .createIndex("oidc_token_seen_expires")
        .on("oidc_token_seen")
        .column("expires_at")
        .execute();
      // Publish tokens granted by an exchange: the secret's sha256, the account whose projects
      // it publishes to, those projects (a JSON list of ids), and the publisher that earned it.
      await db.schema
        .createTable("publish_token")
        .addColumn("id", "varchar(32)", (c) => c.primaryKey())
        .addColumn("token_hash", "varchar(64)", (c) => c.notNull().unique())
        .addColumn("token_start", "varchar(16)", (c) => c.notNull())
        .addColumn("owner_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
        .addColumn("projects", "text", (c) => c.notNull())
        .addColumn("publisher", "varchar(500)", (c) => c.notNull())
        .addColumn("expires_at", "varchar(30)", (c) => c.notNull())
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("publish_token_expires").on("publish_token").column("expires_at").execute();
    },
  },
  "0035_installs": {
    async up(db: Kysely<unknown>) {
      // Installs apart from downloads, and distinct machines per day (decision 083). Installs
      // need no column: download_stat's rows are per kind of client, and a package manager's
      // are installs. A machine is a hash of address and client under a salt of the day
      // (downloads/machines.ts): download_machine holds a project's machines of a day, each
      // once, only until the day is over (downloads/forget.ts); download_machine_day keeps their
      // number per kind of client. A token's machines are counted the same way into
      // entitlement_usage.machines, filled here from the hashes kept so far.
      await db.schema
        .createTable("download_machine")
        .addColumn("project_id", "varchar(32)", (c) =>
          c.notNull().references("project.id").onDelete("cascade"),
        )
        .addColumn("day", "varchar(10)", (c) => c.notNull())
        .addColumn("machine", "varchar(64)", (c) => c.notNull())
        .addColumn("client", "varchar(10)", (c) => c.notNull())
        .addPrimaryKeyConstraint("download_machine_pk", ["project_id", "day", "machine"])
        .execute();
      await db.schema.createIndex("download_machine_by_day").on("download_machine").column("day").execute();
      await db.schema
        .createTable("download_machine_day")
        .addColumn("project_id", "varchar(32)", (c) =>
          c.notNull().references("project.id").onDelete("cascade"),
        )
        .addColumn("day", "varchar(10)", (c) => c.notNull())
        .addColumn("client", "varchar(10)", (c) => c.notNull())
        .addColumn("machines", "bigint", (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint("download_machine_day_pk", ["project_id", "day", "client"])
        .execute();
      await db.schema
        .alterTable("entitlement_usage")
        .addColumn("machines", "bigint", (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`update entitlement_usage set machines = (
        select count(*) from entitlement_machine m
        where m.entitlement_id = entitlement_usage.entitlement_id and m.day = entitlement_usage.day
      )`.execute(db);
      await db.schema
        .createIndex("entitlement_machine_by_day")
        .on("entitlement_machine")
        .column("day")
        .execute();
    },
  },
  "0036_oci_registry": {
    async up(db: Kysely<unknown>) {
      // Container images (issue 41, decision 084): each project is an OCI registry. An image is
      // a repository of the project ("" is the default image, {owner}/{project}; others are
      // {owner}/{project}/{name}). Blobs and manifests are bytes in the shared blob store under
      // their sha256, held by `blob` rows like release files; oci_blob says which repository
      // holds which blob (a pull, a cross-repository mount), oci_manifest_ref what a manifest
      // needs (its config and layers, an index's manifests), so the mark-and-sweep keeps them.
      await db.schema
        .createTable("oci_repository")
        .addColumn("id", "varchar(32)", (c) => c.primaryKey())
        .addColumn("project_id", "varchar(32)", (c) =>
          c.notNull().references("project.id").onDelete("cascade"),
        )
        .addColumn("name", "varchar(200)", (c) => c.notNull())
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .addUniqueConstraint("oci_repository_name", ["project_id", "name"])
        .execute();
      await db.schema
        .createTable("oci_blob")
        .addColumn("repository_id", "varchar(32)", (c) =>
          c.notNull().references("oci_repository.id").onDelete("cascade"),
        )
        .addColumn("sha256", "varchar(64)", (c) => c.notNull())
        .addColumn("size", "bigint", (c) => c.notNull())
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .addPrimaryKeyConstraint("oci_blob_pk", ["repository_id", "sha256"])
        .execute();
      await db.schema.createIndex("oci_blob_by_sha256").on("oci_blob").column("sha256").execute();
      await db.schema
        .createTable("oci_manifest")
        .addColumn("repository_id", "varchar(32)", (c) =>
          c.notNull().references("oci_repository.id").onDelete("cascade"),
        )
        .addColumn("sha256", "varchar(64)", (c) => c.notNull())
        .addColumn("media_type", "varchar(200)", (c) => c.notNull())
        .addColumn("artifact_type", "varchar(200)")
        .addColumn("size", "bigint", (c) => c.notNull())
        .addColumn("subject", "varchar(64)")
        .addColumn("annotations", "text")
        .addColumn("pushed_by", "varchar(200)")
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .addPrimaryKeyConstraint("oci_manifest_pk", ["repository_id", "sha256"])
        .execute();
      await db.schema.createIndex("oci_manifest_by_sha256").on("oci_manifest").column("sha256").execute();
      await db.schema
        .createIndex("oci_manifest_by_subject")
        .on("oci_manifest")
        .columns(["repository_id", "subject"])
        .execute();
      await db.schema
        .createTable("oci_manifest_ref")
        .addColumn("repository_id", "varchar(32)", (c) => c.notNull())
        .addColumn("manifest", "varchar(64)", (c) => c.notNull())
        .addColumn("sha256", "varchar(64)", (c) => c.notNull())
        .addColumn("kind", "varchar(10)", (c) => c.notNull())
        .addPrimaryKeyConstraint("oci_manifest_ref_pk", ["repository_id", "manifest", "sha256"])
        .addForeignKeyConstraint(
          "oci_manifest_ref_manifest",
          ["repository_id", "manifest"],
          "oci_manifest",
          ["repository_id", "sha256"],
          (c) => c.onDelete("cascade"),
        )
        .execute();
      await db.schema
        .createIndex("oci_manifest_ref_by_sha256")
        .on("oci_manifest_ref")
        .column("sha256")
        .execute();
      await db.schema
        .createTable("oci_tag")
        .addColumn("repository_id", "varchar(32)", (c) =>
          c.notNull().references("oci_repository.id").onDelete("cascade"),
        )
        .addColumn("name", "varchar(128)", (c) => c.notNull())
        .addColumn("sha256", "varchar(64)", (c) => c.notNull())
        .addColumn("pushed_by", "varchar(200)")
        .addColumn("updated_at", "varchar(30)", (c) => c.notNull())
        .addPrimaryKeyConstraint("oci_tag_pk", ["repository_id", "name"])
        .execute();
      // A blob upload in progress: its chunks so far, each stored under its own sha256 (no row:
      // the orphan sweep removes them once older than its grace period if never finished).
      await db.schema
        .createTable("oci_upload")
        .addColumn("id", "varchar(40)", (c) => c.primaryKey())
        .addColumn("repository_id", "varchar(32)", (c) =>
          c.notNull().references("oci_repository.id").onDelete("cascade"),
        )
        .addColumn("chunks", "text", (c) => c.notNull())
        .addColumn("size", "bigint", (c) => c.notNull())
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .addColumn("updated_at", "varchar(30)", (c) => c.notNull())
        .execute();
    },
  },
  "0037_oci_pulls": {
    async up(db: Kysely<unknown>) {
      // Container image pulls (issue 41): a manifest fetched (GET) counts a pull, per image, UTC
      // day, tag ("" when fetched by digest) and platform ("" when not one of an index's): a
      // multi-platform pull counts its tag on the index and its platform on the image it chose.
      // An index's child manifests keep their platform for that.
      await db.schema.alterTable("oci_manifest_ref").addColumn("platform", "varchar(100)").execute();
      await db.schema
        .createTable("oci_pull_day")
        .addColumn("repository_id", "varchar(32)", (c) =>
          c.notNull().references("oci_repository.id").onDelete("cascade"),
        )
        .addColumn("day", "varchar(10)", (c) => c.notNull())
        .addColumn("tag", "varchar(128)", (c) => c.notNull())
        .addColumn("platform", "varchar(100)", (c) => c.notNull())
        .addColumn("pulls", "bigint", (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint("oci_pull_day_pk", ["repository_id", "day", "tag", "platform"])
        .execute();
    },
  },
  "0038_retention_image_tags": {
    async up(db: Kysely<unknown>) {
      // Retention of container image tags (issue 41): each image keeps its newest N tags; null
      // is no rule (retention/use-cases.ts).
      await db.schema.alterTable("retention_policy").addColumn("keep_image_tags", "integer").execute();
    },
  },
  "0039_npm_and_pypi": {
    async up(db: Kysely<unknown>) {
      // npm and PyPI registries (issue 42, decision 086): a package's version is a file of the
      // Packyard release of the same version, so a release's deletion, retention, plan storage
      // and download statistics hold for them as for any file; these rows say what the file is.
      await db.schema
        .createTable("npm_version")
        .addColumn("file_id", "varchar(32)", (c) =>
          c.primaryKey().references("release_file.id").onDelete("cascade"),
        )
        .addColumn("project_id", "varchar(32)", (c) =>
          c.notNull().references("project.id").onDelete("cascade"),
        )
        .addColumn("name", "varchar(214)", (c) => c.notNull())
        .addColumn("version", "varchar(128)", (c) => c.notNull())
        .addColumn("manifest", "text", (c) => c.notNull())
        .addColumn("integrity", "varchar(200)", (c) => c.notNull())
        .addColumn("shasum", "varchar(40)", (c) => c.notNull())
        .addColumn("deprecated", "text")
        .addColumn("provenance", "text")
        .addColumn("published_by", "varchar(200)")
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .addUniqueConstraint("npm_version_name", ["project_id", "name", "version"])
        .execute();
      await db.schema
        .createTable("npm_dist_tag")
        .addColumn("project_id", "varchar(32)", (c) =>
          c.notNull().references("project.id").onDelete("cascade"),
        )
        .addColumn("name", "varchar(214)", (c) => c.notNull())
        .addColumn("tag", "varchar(128)", (c) => c.notNull())
        .addColumn("version", "varchar(128)", (c) => c.notNull())
        .addColumn("updated_at", "varchar(30)", (c) => c.notNull())
        .addPrimaryKeyConstraint("npm_dist_tag_pk", ["project_id", "name", "tag"])
        .execute();
      await db.schema
        .createTable("npm_unpublished")
        .addColumn("project_id", "varchar(32)", (c) =>
          c.notNull().references("project.id").onDelete("cascade"),
        )
        .addColumn("name", "varchar(214)", (c) => c.notNull())
        .addColumn("version", "varchar(128)", (c) => c.notNull())
        .addColumn("unpublished_at", "varchar(30)", (c) => c.notNull())
        .addPrimaryKeyConstraint("npm_unpublished_pk", ["project_id", "name", "version"])
        .execute();
      await db.schema
        .createTable("pypi_file")
        .addColumn("file_id", "varchar(32)", (c) =>
          c.primaryKey().references("release_file.id").onDelete("cascade"),
        )
        .addColumn("project_id", "varchar(32)", (c) =>
          c.notNull().references("project.id").onDelete("cascade"),
        )
        .addColumn("name", "varchar(200)", (c) => c.notNull())
        .addColumn("display_name", "varchar(200)", (c) => c.notNull())
        .addColumn("version", "varchar(128)", (c) => c.notNull())
        .addColumn("filename", "varchar(255)", (c) => c.notNull())
        .addColumn("packagetype", "varchar(20)", (c) => c.notNull())
        .addColumn("requires_python", "varchar(200)")
        .addColumn("summary", "text")
        .addColumn("metadata", "text")
        .addColumn("metadata_sha256", "varchar(64)")
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .addUniqueConstraint("pypi_file_filename", ["project_id", "filename"])
        .execute();
      await db.schema
        .createIndex("pypi_file_by_name")
        .on("pypi_file")
        .columns(["project_id", "name"])
        .execute();
      // A publish token keeps the CI's claims: what an npm or Python package published with it
      // records as its provenance.
      await db.schema.alterTable("publish_token").addColumn("claims", "text").execute();
    },
  },
  "0040_org_domains": {
    async up(db: Kysely<unknown>) {
      // Verified domains (issue 43, docs/sso.md): an organization claims a domain and proves it
      // with a TXT record. `verified_domain` is the domain once proven, null before: unique, so
      // one organization holds a domain however many have claimed it.
      await db.schema
        .createTable("org_domain")
        .addColumn("id", "varchar(32)", (c) => c.primaryKey())
        .addColumn("org_id", "text", (c) => c.notNull().references("organization.id").onDelete("cascade"))
        .addColumn("domain", "varchar(253)", (c) => c.notNull())
        .addColumn("token", "varchar(64)", (c) => c.notNull())
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .addColumn("verified_at", "varchar(30)")
        .addColumn("verified_domain", "varchar(253)", (c) => c.unique())
        .addUniqueConstraint("org_domain_org_domain", ["org_id", "domain"])
        .execute();
    },
  },
  "0041_sso_and_scim": {
    async up(db: Kysely<unknown>) {
      // Single sign-on (issue 43, docs/sso.md, decision 088). The identity providers themselves
      // are better-auth's `ssoProvider` rows (its migrations make that table and the session's
      // `ssoOrganizationId`); what an organization decides about them is here: whether its
      // members must come through its provider, the role a new member gets, and which IdP groups
      // give which role (JSON: {"group name": "admin", …}).
      await db.schema
        .alterTable("organization")
        .addColumn("sso_enforced", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable("organization")
        .addColumn("sso_default_role", "varchar(16)", (c) => c.notNull().defaultTo("viewer"))
        .execute();
      await db.schema
        .alterTable("organization")
        .addColumn("sso_group_roles", "text", (c) => c.notNull().defaultTo("{}"))
        .execute();
      // SCIM 2.0 (orgs/scim/): the bearer tokens an identity provider provisions with (only their
      // SHA-256 is kept; the token alone names the organization), the users and groups it
      // manages, and which users are in which groups.
      await db.schema
        .createTable("scim_token")
        .addColumn("id", "varchar(32)", (c) => c.primaryKey())
        .addColumn("org_id", "text", (c) => c.notNull().references("organization.id").onDelete("cascade"))
        .addColumn("token_hash", "varchar(64)", (c) => c.notNull().unique())
        .addColumn("token_start", "varchar(16)", (c) => c.notNull())
        .addColumn("created_by", "text")
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .addColumn("last_used_at", "varchar(30)")
        .execute();
      await db.schema
        .createTable("scim_user")
        .addColumn("id", "varchar(32)", (c) => c.primaryKey())
        .addColumn("org_id", "text", (c) => c.notNull().references("organization.id").onDelete("cascade"))
        .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
        .addColumn("user_name", "varchar(320)", (c) => c.notNull())
        .addColumn("external_id", "varchar(255)")
        .addColumn("display_name", "varchar(255)")
        .addColumn("given_name", "varchar(255)")
        .addColumn("family_name", "varchar(255)")
        .addColumn("active", "integer", (c) => c.notNull().defaultTo(1))
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .addColumn("updated_at", "varchar(30)", (c) => c.notNull())
        .addUniqueConstraint("scim_user_org_user", ["org_id", "user_id"])
        .addUniqueConstraint("scim_user_org_name", ["org_id", "user_name"])
        .execute();
      await db.schema
        .createTable("scim_group")
        .addColumn("id", "varchar(32)", (c) => c.primaryKey())
        .addColumn("org_id", "text", (c) => c.notNull().references("organization.id").onDelete("cascade"))
        .addColumn("display_name", "varchar(255)", (c) => c.notNull())
        .addColumn("external_id", "varchar(255)")
        .addColumn("created_at", "varchar(30)", (c) => c.notNull())
        .addColumn("updated_at", "varchar(30)", (c) => c.notNull())
        .addUniqueConstraint("scim_group_org_name", ["org_id", "display_name"])
        .execute();
      await db.schema
        .createTable("scim_group_member")
        .addColumn("group_id", "varchar(32)", (c) =>
          c.notNull().references("scim_group.id").onDelete("cascade"),
        )
        .addColumn("scim_user_id", "varchar(32)", (c) =>
          c.notNull().references("scim_user.id").onDelete("cascade"),
        )
        .addPrimaryKeyConstraint("scim_group_member_pk", ["group_id", "scim_user_id"])
        .execute();
    },
  },
};
