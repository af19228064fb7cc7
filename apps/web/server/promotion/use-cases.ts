// Promoting a release (decision 035): within its project, or copied into another project of the
// same owner (promote.ts prepares and applies either). One change: the promotion, its
// `release.promoted` entry in the source project's log, and the target's events after commit.
import type { PromoteInput, PromotionResult } from "@packyard/contract";
import type { Actor } from "../platform/core/authorization.ts";
import { DomainError } from "../platform/core/errors.ts";
import { type Caller, change } from "../platform/core/use-case.ts";
import { requireOwnProject } from "../projects/storage.ts";
import { requireRelease } from "../releases/storage.ts";
import {
  applyCopy,
  applyMove,
  discardCopy,
  type PromotionDeps,
  prepareCopy,
  prepareMove,
  releaseFiles,
  targetProject,
} from "./promote.ts";

export async function promoteRelease(
  deps: PromotionDeps,
  caller: Caller & { actor: Actor },
  input: { project: string; version: string; promotion: PromoteInput },
): Promise<PromotionResult> {
  const { db } = deps;
  const { actor } = caller;
  const promotion = input.promotion;
  const source = await requireOwnProject(db, actor, input.project, "publish");
  const release = await requireRelease(db, source.id, input.version);
  if (Number(release.yanked) === 1)
    throw new DomainError(
      "RELEASE_YANKED",
      `Release ${release.version} is yanked: unyank it before promoting it`,
    );
  const target = await targetProject(db, actor, source, promotion.project);
  const files = await releaseFiles(db, release.id);
  const entry = (result: PromotionResult) => ({
    ownerId: source.owner_id,
    projectId: source.id,
    projectSlug: source.slug,
    action: "release.promoted" as const,
    target: release.version,
    details: {
      mode: result.mode,
      to: { project: target.slug, ...promotion },
      files: result.files.map((f) => ({ filename: f.filename, target: f.target, resigned: f.resigned })),
    },
  });

  if (target.id === source.id) {
    const move = await prepareMove(deps, source, release, files, promotion);
    return change(db, caller, async (tx, record) => {
      const result = await applyMove(tx, move);
      record.audit(entry(result));
      record.emit({ type: "packages-changed", projectId: source.id });
      return result;
    });
  }

  const copy = await prepareCopy(deps, target, release, files, promotion);
  try {
    return await change(db, caller, async (tx, record) => {
      const result = await applyCopy(tx, copy);
      record.audit(entry(result));
      if (copy.packaged) record.emit({ type: "packages-changed", projectId: target.id });
      // For webhooks (decision 032): to the target project, a copy is a new release with its files.
      record.emit({ type: "release.created", projectId: target.id, releaseId: copy.releaseId });
      for (const file of copy.copied)
        record.emit({
          type: "file.uploaded",
          projectId: target.id,
          releaseId: copy.releaseId,
          fileId: file.fileId!,
        });
      return result;
    });
  } catch (error) {
    await discardCopy(deps, copy);
    throw error;
  }
}
