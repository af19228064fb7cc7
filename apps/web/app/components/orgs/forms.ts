// The organization pages' forms (routes/_app/org-*.tsx, routes/invitation.tsx): the contract's
// schemas, read the way a form posts them. Checked in the browser and again by the actions.
import {
  createOrgSchema,
  inviteMemberSchema,
  updateMemberSchema,
  updateOrgSchema,
} from "@packyard/contract/orgs.ts";
import { z } from "zod";
import { text, trimmed } from "../../lib/forms.ts";

export const newOrgForm = z.object({
  slug: text(trimmed(createOrgSchema.shape.slug)),
  name: text(createOrgSchema.shape.name),
});
export const renameOrgForm = z.object({ name: text(updateOrgSchema.shape.name) });
export const inviteForm = z.object({
  email: text(inviteMemberSchema.shape.email),
  role: text(inviteMemberSchema.shape.role),
});
export const memberRoleForm = z.object({
  username: text(z.string().min(1)),
  role: text(updateMemberSchema.shape.role),
});
export const memberForm = z.object({ username: text(z.string().min(1)) });
export const invitationForm = z.object({ invitationId: text(z.string().min(1)) });
export function deleteOrgForm(slug: string) {
  return z.object({
    confirm: text(
      z
        .string()
        .refine((typed) => typed.trim() === slug, `Type ${slug} to confirm that you want to delete it`),
    ),
  });
}
