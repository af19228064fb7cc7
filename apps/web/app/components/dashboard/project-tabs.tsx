// The tabs under a project's breadcrumbs: its overview, releases, downloads, container images,
// npm and Python libraries, audit log, webhooks, entitlement tokens, trusted publishing and
// settings (a TabRow of plain links).
import { TabRow } from "./tab-row.tsx";

const TABS = [
  { label: "Overview", path: "", end: true },
  { label: "Releases", path: "/releases", end: false },
  { label: "Downloads", path: "/downloads", end: true },
  { label: "Images", path: "/images", end: true },
  { label: "Libraries", path: "/libraries", end: true },
  { label: "Audit log", path: "/audit", end: true },
  { label: "Webhooks", path: "/webhooks", end: true },
  { label: "Entitlements", path: "/entitlements", end: false },
  { label: "Publishing", path: "/publishing", end: true },
  { label: "Settings", path: "/settings", end: true },
] as const;

/** The tabs shown only to those who oversee the project. */
const OVERSEEN = new Set<string>(["/audit", "/webhooks", "/entitlements", "/publishing"]);

/**
 * `base`: the project's page (lib/project-path.ts projectPath). `oversee`: whether the user sees
 * how the project is managed (its audit log, webhooks, entitlement tokens and trusted publishers:
 * an organization's admins and owners, authorization.ts); without it those tabs are left out.
 */
export function ProjectTabs({ base, oversee = true }: { base: string; oversee?: boolean }) {
  const tabs = TABS.filter((tab) => oversee || !OVERSEEN.has(tab.path)).map((tab) => ({
    label: tab.label,
    to: `${base}${tab.path}`,
    end: tab.end,
  }));
  return <TabRow label="Project" tabs={tabs} />;
}
