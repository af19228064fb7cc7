// The release page's Promote dialog (decision 035): where the release's packages are listed now
// and which projects it may be copied to, and the action that promotes it through the same
// use case as POST /api/v1/projects/{slug}/releases/{version}/promote.
import type { Kysely } from "kysely";
import { formats } from "../../server/formats/registry.ts";
import type { Database } from "../../server/platform/db/schema.ts";
import type { ProjectRow } from "../../server/projects/storage.ts";
import { promoteRelease } from "../../server/promotion/use-cases.ts";
import type { ReleaseRow } from "../../server/releases/storage.ts";
import type { Services } from "../../server/services.ts";
import { domainFailure, invalid, sessionActor, succeeded } from "./dashboard.server.ts";
import { parseForm } from "./forms.ts";
import { promoteForm } from "./promote-form.ts";

export interface PromotionChoices {
  /** The owner's other projects, by slug. */
  projects: { slug: string; name: string }[];
  /** Where the release's .deb files are listed ("suite/component") and its .rpm files' groups. */
  apt: string[];
  yum: string[];
}

export async function promotionChoices(
  db: Kysely<Database>,
  project: ProjectRow,
  release: ReleaseRow,
): Promise<PromotionChoices> {
  const projects = await db
    .selectFrom("project")
    .select(["slug", "name"])
    .where("owner_id", "=", project.owner_id)
    .where("id", "!=", project.id)
    .orderBy("slug")
    .execute();
  // Each format's listings of the release, as its promotion answers name them.
  const listed: Record<string, string[]> = {};
  for (const format of formats) {
    const targets = (await format.listed(db, release.id)).values();
    listed[format.id] = [...new Set(Array.from(targets, (target) => format.describe(target)))].sort();
  }
  return { projects, apt: listed.apt ?? [], yum: listed.yum ?? [] };
}

export async function promoteAction(
  services: Pick<Services, "database" | "blobs" | "keys" | "config">,
  user: { id: string },
  project: ProjectRow,
  release: ReleaseRow,
  formData: FormData,
  address: string,
) {
  const submission = parseForm(formData, promoteForm);
  if (submission.status !== "success") return invalid(submission);
  try {
    const promotion = await promoteRelease(
      { db: services.database.db, blobs: services.blobs, keys: services.keys, limits: services.config },
      { actor: sessionActor(user), address },
      { project: project.slug, version: release.version, promotion: submission.value },
    );
    const targets = [...new Set(promotion.files.map((f) => f.target).filter((t) => t !== null))];
    return succeeded(
      submission,
      promotion.mode === "copied"
        ? `Copied ${release.version} to ${promotion.project}`
        : `Promoted ${release.version}: now in ${targets.map((t) => t || "the root group").join(", ")}`,
    );
  } catch (error) {
    return domainFailure(submission, error, {
      PROMOTION_TARGET_NOT_FOUND: "project",
      INVALID_DISTRIBUTION: "distribution",
      INVALID_GROUP: "group",
    });
  }
}
