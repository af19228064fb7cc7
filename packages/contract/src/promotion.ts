// Promotion of a release (decision 035): to another APT suite or component, another YUM group of
// the same project, or into another project of the same owner, without uploading again.
import { z } from "zod";
import { projectSlug } from "./names.ts";

const token = (field: string) =>
  z
    .string(`${field} must be text`)
    .regex(
      /^[a-z0-9][a-z0-9.+-]{0,63}$/,
      `${field} must be lowercase letters, digits, . + or -, at most 64 characters`,
    );

export const promoteInput = z
  .object({
    /** The APT suite the release's .deb files go to (as `?distribution=` on upload). */
    distribution: token("distribution").optional(),
    /** The APT component (as `?component=` on upload). */
    component: token("component").optional(),
    /** The YUM group the release's .rpm files go to ("" = the repository root). */
    group: z
      .string("group must be text")
      .regex(
        /^(?:[a-z0-9][a-z0-9._-]{0,63})?$/,
        "group must be lowercase letters, digits, . _ or -, at most 64 characters",
      )
      .optional(),
    /** Another project of the same owner: the release is copied there. */
    project: projectSlug.optional(),
  })
  .refine(
    (v) =>
      v.distribution !== undefined ||
      v.component !== undefined ||
      v.group !== undefined ||
      v.project !== undefined,
    { message: "Name a target: distribution, component, group and/or project" },
  );
export type PromoteInput = z.infer<typeof promoteInput>;

export const promotionResult = z.object({
  /** The target project's slug (the same as the source for a move within the project). */
  project: z.string(),
  version: z.string(),
  /** copied: a new release in another project; moved: the packages listed elsewhere in the same one. */
  mode: z.enum(["copied", "moved"]),
  files: z.array(
    z.object({
      filename: z.string(),
      sha256: z.string(),
      /** For a .deb: "suite/component"; for an .rpm: the group ("" = root); else null. */
      target: z.string().nullable(),
      /** True when an .rpm was signed again with the target project's key. */
      resigned: z.boolean(),
    }),
  ),
});
export type PromotionResult = z.infer<typeof promotionResult>;
