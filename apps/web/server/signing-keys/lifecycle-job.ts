// The signing-key-lifecycle job (maintenance.ts, hourly, one server per occurrence): for each
// project whose keys or settings may need it, carries out planKeyLifecycle's plan — the
// successor made, the expiry notices mailed (each claimed in the database first, so it goes
// once), the repositories re-signed. The time comes from the services' clock (tests move it).
import type { Kysely } from "kysely";
import type { Clock } from "../accounts/usernames.ts";
import { projectsWithStaleSignatures } from "../formats/registry.ts";
import { isOrganization, ownerRecipients } from "../orgs/storage.ts";
import type { Config } from "../platform/config/config.ts";
import { SYSTEM } from "../platform/core/use-case.ts";
import type { Database } from "../platform/db/schema.ts";
import type { Mailer } from "../platform/mail/mailer.ts";
import { signingKeyExpiryMail } from "../platform/mail/templates.ts";
import type { Logger } from "../platform/observability/logger.ts";
import { DAY_MS } from "../projects/repository-settings.ts";
import { rotateExpiringSigningKey } from "../projects/use-cases.ts";
import type { RepositoryPublisher } from "../repositories/publisher.ts";
import { DEFAULT_ROTATION_OVERLAP_MS, type SigningKeyService } from "./keys.ts";
import { planKeyLifecycle, ROTATION_LEAD_DAYS } from "./lifecycle.ts";

export const KEY_LIFECYCLE_JOB = "signing-key-lifecycle";

export interface KeyLifecycleDeps {
  db: Kysely<Database>;
  keys: SigningKeyService;
  repos: Pick<RepositoryPublisher, "publish">;
  mailer: Mailer;
  config: Pick<Config, "baseUrl">;
  logger: Logger;
  clock: Clock;
  /** Queues the re-signing of a project's files (.rpm) by its newest key (registry.ts's resignQueue, decision 030). */
  resignRpms?: (projectId: string) => Promise<void>;
}

export interface KeyLifecycleResult {
  rotated: string[];
  resigned: string[];
  mailed: number;
}

/** Projects the job must look at: an expiry or Valid-Until set, or a key retiring lately or soon. */
async function candidates(db: Kysely<Database>, now: Date) {
  const recently = new Date(now.getTime() - 7 * DAY_MS).toISOString();
  return db
    .selectFrom("project")
    .innerJoin("user", "user.id", "project.owner_id")
    .select([
      "project.id",
      "project.name",
      "project.slug",
      "project.signed_by",
      "project.owner_id",
      "project.apt_valid_until_days",
      "user.username",
    ])
    .where((eb) =>
      eb.or([
        eb("project.apt_valid_until_days", "is not", null),
        eb.exists(
          eb
            .selectFrom("signing_key")
            .select("signing_key.id")
            .whereRef("signing_key.project_id", "=", "project.id")
            .where((k) =>
              k.or([k("signing_key.expires_at", "is not", null), k("signing_key.retire_at", ">", recently)]),
            ),
        ),
      ]),
    )
    .orderBy("project.id")
    .execute();
}

export async function keyLifecyclePass(deps: KeyLifecycleDeps): Promise<KeyLifecycleResult> {
  const { db, keys, logger } = deps;
  const result: KeyLifecycleResult = { rotated: [], resigned: [], mailed: 0 };
  for (const project of await candidates(db, deps.clock())) {
    try {
      const now = deps.clock();
      const apt = await db
        .selectFrom("repo_generation")
        .select((eb) => eb.fn.max("created_at").as("at"))
        .where("project_id", "=", project.id)
        .where("format", "=", "apt")
        .executeTakeFirst();
      const plan = planKeyLifecycle({
        keys: await keys.all(project.id),
        now,
        signedBy: project.signed_by,
        aptSignedAt: apt?.at ? new Date(apt.at) : null,
        validUntilDays: project.apt_valid_until_days === null ? null : Number(project.apt_valid_until_days),
        overlapMs: DEFAULT_ROTATION_OVERLAP_MS,
      });
      const ref = { id: project.id, name: project.name };
      const fullName = `${project.username}/${project.slug}`;
      if (plan.rotate) {
        // Recorded and announced as the system's rotation; the .rpm files are queued for re-signing.
        const successor = await rotateExpiringSigningKey(deps, SYSTEM, {
          project: { ...ref, owner_id: project.owner_id },
          retireAt: plan.rotate.retireAt,
        });
        result.rotated.push(project.id);
        logger.info(`signing key of ${fullName} nears its expiry: successor ${successor.fingerprint} made`);
      }
      if (plan.notices.length > 0) {
        const all = await keys.all(project.id);
        for (const notice of plan.notices) {
          const column = notice.days === 30 ? "notice_30_at" : "notice_7_at";
          // Claimed first: a notice goes once, whichever server runs the job.
          const claimed = await db
            .updateTable("signing_key")
            .set(
              notice.days === 7
                ? { notice_7_at: now.toISOString(), notice_30_at: now.toISOString() }
                : { notice_30_at: now.toISOString() },
            )
            .where("id", "=", notice.keyId)
            .where(column, "is", null)
            .executeTakeFirst();
          if (Number(claimed.numUpdatedRows) !== 1) continue;
          const index = all.findIndex((k) => k.id === notice.keyId);
          const key = all[index]!;
          const successor = all[index + 1] ?? null;
          const expiresAt = key.expires_at!;
          // To the owner: the person, or an organization's owners (decision 040), whose project
          // pages are under /orgs/{org}/projects.
          const pages = (await isOrganization(db, project.owner_id))
            ? `/orgs/${project.username}/projects/${project.slug}`
            : `/projects/${project.slug}`;
          for (const owner of await ownerRecipients(db, project.owner_id))
            await deps.mailer.send(
              signingKeyExpiryMail(owner.email, owner.name, {
                project: fullName,
                fingerprint: key.fingerprint,
                expiresAt,
                days: notice.days,
                successor: successor && {
                  fingerprint: successor.fingerprint,
                  createdAt: successor.created_at,
                },
                retireAt: successor ? key.retire_at : null,
                successorDue: successor
                  ? null
                  : new Date(Date.parse(expiresAt) - ROTATION_LEAD_DAYS * DAY_MS).toISOString(),
                keyringUrl: `${deps.config.baseUrl}/dl/${fullName}/keyring.gpg`,
                settingsUrl: `${deps.config.baseUrl}${pages}/settings`,
              }),
            );
          result.mailed++;
        }
      }
      if (plan.resign) {
        await deps.repos.publish(project.id);
        result.resigned.push(project.id);
        logger.info(`repositories of ${fullName} re-signed (${plan.resign})`);
      }
    } catch (error) {
      // One project's failure leaves the others to this pass and itself to the next one.
      logger.error(`signing key lifecycle of project ${project.id} failed`, error);
    }
  }
  // Catch-up: files (.rpm) a rotation's re-signing has not reached (a lost job, files signed
  // before the signer was recorded) are queued again; the job skips what is done.
  if (deps.resignRpms) {
    for (const projectId of await projectsWithStaleSignatures(db)) {
      await deps
        .resignRpms(projectId)
        .catch((error) => logger.error(`queueing the re-signing of ${projectId} failed`, error));
    }
  }
  return result;
}
