// The tabs under a project's breadcrumbs: its overview, releases, downloads, audit log, webhooks
// and settings. Plain links (each tab is its own route, so they work without JavaScript and can
// be opened in a new tab); the current one carries aria-current. The row scrolls sideways on a
// narrow screen instead of wrapping, scrolled so the current tab is in view.
import { useEffect, useRef } from "react";
import { NavLink, useLocation } from "react-router";
import { cn } from "../../lib/utils.ts";

const TABS = [
  { label: "Overview", path: "", end: true },
  { label: "Releases", path: "/releases", end: false },
  { label: "Downloads", path: "/downloads", end: true },
  { label: "Audit log", path: "/audit", end: true },
  { label: "Webhooks", path: "/webhooks", end: true },
  { label: "Settings", path: "/settings", end: true },
] as const;

/**
 * `base`: the project's page (lib/project-path.ts projectPath). `oversee`: whether the user sees
 * how the project is managed (its audit log and webhooks: an organization's admins and owners,
 * authorization.ts); without it those tabs are left out.
 */
export function ProjectTabs({ base, oversee = true }: { base: string; oversee?: boolean }) {
  const nav = useRef<HTMLElement>(null);
  const { pathname } = useLocation();
  useEffect(() => {
    const row = nav.current;
    const current = row?.querySelector<HTMLElement>('[aria-current="page"]');
    if (!row || !current) return;
    const overflow = current.getBoundingClientRect().right - row.getBoundingClientRect().right;
    if (overflow > 0) row.scrollLeft += overflow + 16;
  }, [pathname]); // the current tab changes with the path
  return (
    <nav ref={nav} aria-label="Project" className="-mx-1 mb-6 overflow-x-auto border-b border-border">
      <ul className="flex min-w-max gap-1 px-1">
        {TABS.filter((tab) => oversee || (tab.path !== "/audit" && tab.path !== "/webhooks")).map((tab) => (
          <li key={tab.label}>
            <NavLink
              to={`${base}${tab.path}`}
              end={tab.end}
              className={({ isActive }) =>
                cn(
                  "-mb-px inline-flex h-10 items-center border-b-2 px-3 text-sm font-medium transition-colors",
                  "rounded-t-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring",
                  isActive
                    ? "border-primary text-foreground"
                    : "border-transparent text-muted-foreground hover:border-border hover:text-foreground",
                )
              }
            >
              {tab.label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
