// A row of tabs that are plain links: each tab is its own route, so they work without
// JavaScript and can be opened in a new tab; the current one carries aria-current. The row
// scrolls sideways on a narrow screen instead of wrapping, scrolled so the current tab is in
// view. Used by a project's tabs and an organization's.
import { useEffect, useRef } from "react";
import { NavLink, useLocation } from "react-router";
import { cn } from "../../lib/utils.ts";

export interface TabLink {
  label: string;
  to: string;
  /** Whether only the exact path marks the tab current (not the paths under it). */
  end: boolean;
}

/** `label`: the navigation's accessible name ("Project", "Organization"). */
export function TabRow({ label, tabs }: { label: string; tabs: readonly TabLink[] }) {
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
    <nav ref={nav} aria-label={label} className="-mx-1 mb-6 overflow-x-auto border-b border-border">
      <ul className="flex min-w-max gap-1 px-1">
        {tabs.map((tab) => (
          <li key={tab.label}>
            <NavLink
              to={tab.to}
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
