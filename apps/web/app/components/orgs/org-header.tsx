// The top of an organization's pages: its name and slug, the signed-in member's role, and tabs
// for its projects, members, audit log, entitlement tokens and settings (a TabRow, like a
// project's tabs).
import type { OrgRole } from "@packyard/contract/orgs.ts";
import { Building2 } from "lucide-react";
import { orgPath } from "../../lib/project-path.ts";
import { TabRow } from "../dashboard/tab-row.tsx";
import { Badge } from "../ui/badge.tsx";

const TABS = [
  { label: "Projects", path: "", end: true, adminOnly: false },
  { label: "Members", path: "/members", end: true, adminOnly: false },
  { label: "Audit log", path: "/audit", end: true, adminOnly: true },
  { label: "Entitlements", path: "/entitlements", end: false, adminOnly: true },
  { label: "Settings", path: "/settings", end: true, adminOnly: false },
] as const;

export function RoleBadge({ role }: { role: OrgRole }) {
  return (
    <Badge variant={role === "owner" || role === "admin" ? "default" : "secondary"} data-testid="org-role">
      {role}
    </Badge>
  );
}

/** `admin`: whether the member administers it (orgAbilities), for the admins' tabs. */
export function OrgHeader({
  org,
  role,
  admin,
}: {
  org: { slug: string; name: string };
  role: OrgRole;
  admin: boolean;
}) {
  return (
    <>
      <header className="mb-4 flex min-w-0 items-start gap-3">
        <div className="rounded-lg bg-accent p-2.5 text-primary">
          <Building2 className="size-5" aria-hidden="true" />
        </div>
        <div className="min-w-0">
          <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
            <h1 className="break-words text-2xl font-bold tracking-tight">{org.name}</h1>
            <span className="flex items-center gap-1.5 text-sm text-muted-foreground">
              Your role <RoleBadge role={role} />
            </span>
          </div>
          <p className="mt-0.5 font-mono text-sm text-muted-foreground">{org.slug}</p>
        </div>
      </header>
      <TabRow
        label="Organization"
        tabs={TABS.filter((tab) => admin || !tab.adminOnly).map((tab) => ({
          label: tab.label,
          to: orgPath(org.slug, tab.path),
          end: tab.end,
        }))}
      />
    </>
  );
}
