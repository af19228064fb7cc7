// A sign-in through an organization's identity provider (auth.ts tells of each, docs/sso.md):
// just-in-time membership. Someone new to the organization becomes a member with the role their
// IdP groups map to (the organization's group roles), else its default role; a member whose IdP
// sends groups that map gets that role at each sign-in — never demoting the last owner. Each
// sign-in, membership and role change is in the organization's log.
import { groupsOf, isAtDomain, roleFromGroups } from "@packyard/contract";
import type { SsoSignIn } from "../auth/auth.ts";
import { type Caller, change, type Db } from "../platform/core/use-case.ts";
import { ssoSettingsOf } from "./sso.ts";
import { memberRole } from "./storage.ts";

export async function provisionSsoSignIn(
  db: Db,
  signIn: SsoSignIn,
  address: string | null = null,
): Promise<void> {
  const provider = await db
    .selectFrom("ssoProvider")
    .select(["organizationId", "domain"])
    .where("providerId", "=", signIn.providerId)
    .executeTakeFirst();
  const orgId = provider?.organizationId;
  // auth.ts refuses an address outside the provider's domain before any session; never a member.
  if (!orgId || !isAtDomain(signIn.email, provider.domain)) return;
  const settings = await ssoSettingsOf(db, orgId);
  const groups = groupsOf(signIn.attributes.groups);
  const { role, mapped } = roleFromGroups(groups, settings.groupRoles, settings.defaultRole);
  const caller: Caller = { actor: { kind: "session", userId: signIn.userId }, address };
  await change(db, caller, async (tx, record) => {
    const current = await memberRole(tx, orgId, signIn.userId);
    if (!current) {
      await tx
        .insertInto("org_member")
        .values({ org_id: orgId, user_id: signIn.userId, role, created_at: new Date().toISOString() })
        .execute();
      record.audit({
        ownerId: orgId,
        action: "organization.member_provisioned",
        target: signIn.email,
        details: { role, via: signIn.providerId, groups: groups.join(", ") },
      });
    } else if (mapped && current !== role) {
      const owners = await tx
        .selectFrom("org_member")
        .select("user_id")
        .where("org_id", "=", orgId)
        .where("role", "=", "owner")
        .execute();
      const lastOwner = current === "owner" && owners.length === 1;
      if (!lastOwner) {
        await tx
          .updateTable("org_member")
          .set({ role })
          .where("org_id", "=", orgId)
          .where("user_id", "=", signIn.userId)
          .execute();
        record.audit({
          ownerId: orgId,
          action: "organization.member_role_synced",
          target: signIn.email,
          details: { from: current, to: role, via: signIn.providerId, groups: groups.join(", ") },
        });
      }
    }
    record.audit({
      ownerId: orgId,
      action: "organization.sso_signed_in",
      target: signIn.email,
      details: { via: signIn.providerId, domain: provider.domain },
    });
  });
}
