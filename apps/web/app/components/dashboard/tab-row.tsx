// A row of tabs that are plain links: each tab is its own route, so they work without
// JavaScript and can be opened in a new tab; the current one carries aria-current. The row
// scrolls sideways on a narrow screen instead of wrapping, scrolled so the current tab is in
// view; while tabs are out of view, the edge they hide behind fades and shows an arrow that
// scrolls to them (a phone shows no scrollbar). Used by a project's tabs and an organization's.
import { ChevronLeft, ChevronRight } from "lucide-react";
import { useCallback, useEffect, useRef, useState } from "react";
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
  const [hidden, setHidden] = useState({ left: false, right: false });
  const measure = useCallback(() => {
    const row = nav.current;
    if (!row) return;
    // A pixel of slack: zoomed layouts report fractional scroll positions.
    setHidden({
      left: row.scrollLeft > 1,
      right: row.scrollLeft + row.clientWidth < row.scrollWidth - 1,
    });
  }, []);
  useEffect(() => {
    const row = nav.current;
    const current = row?.querySelector<HTMLElement>('[aria-current="page"]');
    if (row && current) {
      const overflow = current.getBoundingClientRect().right - row.getBoundingClientRect().right;
      if (overflow > 0) row.scrollLeft += overflow + 16;
    }
    measure();
  }, [pathname, measure]); // the current tab changes with the path
  useEffect(() => {
    const row = nav.current;
    if (!row) return;
    const observer = new ResizeObserver(measure);
    observer.observe(row);
    return () => observer.disconnect();
  }, [measure]);
  const scrollBy = (direction: 1 | -1) => {
    const row = nav.current;
    row?.scrollBy({ left: direction * row.clientWidth * 0.7, behavior: "smooth" });
  };
  return (
    <div className="relative -mx-1 mb-6">
      <nav
        ref={nav}
        aria-label={label}
        onScroll={measure}
        className="overflow-x-auto border-b border-border [scrollbar-width:none]"
      >
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
      {/* For pointers only: keyboard users reach every tab with Tab, which scrolls it into view. */}
      {hidden.left ? <ScrollArrow side="left" onClick={() => scrollBy(-1)} /> : null}
      {hidden.right ? <ScrollArrow side="right" onClick={() => scrollBy(1)} /> : null}
    </div>
  );
}

function ScrollArrow({ side, onClick }: { side: "left" | "right"; onClick: () => void }) {
  const Icon = side === "left" ? ChevronLeft : ChevronRight;
  return (
    <button
      type="button"
      tabIndex={-1}
      aria-hidden="true"
      data-testid={`tabs-more-${side}`}
      onClick={onClick}
      className={cn(
        "absolute top-0 bottom-px flex w-10 items-center text-muted-foreground hover:text-foreground",
        side === "left"
          ? "left-0 justify-start bg-linear-to-r from-background from-50% to-transparent pl-0.5"
          : "right-0 justify-end bg-linear-to-l from-background from-50% to-transparent pr-0.5",
      )}
    >
      <Icon className="size-5" />
    </button>
  );
}
