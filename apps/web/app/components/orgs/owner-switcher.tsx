// The dashboard's owner switcher: whose projects you are looking at — your own (Personal) or an
// organization's you belong to — and New organization. A disclosure button over a list of links,
// so it works with the keyboard and without JavaScript-only widgets.
import { Building2, Check, ChevronsUpDown, Plus, User } from "lucide-react";
import { useEffect, useId, useRef, useState } from "react";
import { Link, useLocation } from "react-router";
import { orgPath } from "../../lib/project-path.ts";
import { cn } from "../../lib/utils.ts";

export interface SwitcherOrg {
  slug: string;
  name: string;
}

/** The organization a dashboard path belongs to, if any. */
export function currentOrgSlug(pathname: string): string | null {
  const match = /^\/orgs\/([^/]+)/.exec(pathname);
  return match && match[1] !== "new" ? decodeURIComponent(match[1]!) : null;
}

export function OwnerSwitcher({
  username,
  orgs,
  onNavigate,
}: {
  username: string;
  orgs: SwitcherOrg[];
  onNavigate?: () => void;
}) {
  const { pathname } = useLocation();
  const [open, setOpen] = useState(false);
  const listId = useId();
  const box = useRef<HTMLDivElement>(null);
  const current = currentOrgSlug(pathname);
  const currentOrg = orgs.find((o) => o.slug.toLowerCase() === current?.toLowerCase());
  useEffect(() => setOpen(false), [pathname]);
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") setOpen(false);
    };
    const onClick = (event: MouseEvent) => {
      if (!box.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("mousedown", onClick);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("mousedown", onClick);
    };
  }, [open]);
  const item = (active: boolean) =>
    cn(
      "flex items-center gap-2 rounded-md px-2.5 py-2 text-sm transition-colors",
      active ? "bg-accent text-primary" : "text-foreground hover:bg-muted",
    );
  const done = () => {
    setOpen(false);
    onNavigate?.();
  };
  return (
    <div ref={box} className="relative" data-testid="owner-switcher">
      <button
        type="button"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen(!open)}
        className="flex w-full items-center gap-2 rounded-md border border-border bg-background px-3 py-2 text-left text-sm font-medium hover:bg-muted focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring"
      >
        {currentOrg ? (
          <Building2 className="size-4 shrink-0 text-primary" aria-hidden="true" />
        ) : (
          <User className="size-4 shrink-0 text-primary" aria-hidden="true" />
        )}
        <span className="min-w-0 flex-1 truncate">
          <span className="sr-only">Owner: </span>
          {currentOrg ? currentOrg.name : `Personal (${username})`}
        </span>
        <ChevronsUpDown className="size-4 shrink-0 text-muted-foreground" aria-hidden="true" />
      </button>
      {open ? (
        <div
          id={listId}
          className="absolute inset-x-0 top-full z-20 mt-1 grid gap-0.5 rounded-md border border-border bg-card p-1 text-foreground shadow-lg"
        >
          <Link to="/dashboard" className={item(!currentOrg)} onClick={done}>
            <User className="size-4" aria-hidden="true" />
            <span className="min-w-0 flex-1 truncate">Personal ({username})</span>
            {currentOrg ? null : <Check className="size-4" aria-label="current" />}
          </Link>
          {orgs.map((org) => {
            const active = org.slug === currentOrg?.slug;
            return (
              <Link key={org.slug} to={orgPath(org.slug)} className={item(active)} onClick={done}>
                <Building2 className="size-4" aria-hidden="true" />
                <span className="min-w-0 flex-1 truncate">{org.name}</span>
                {active ? <Check className="size-4" aria-label="current" /> : null}
              </Link>
            );
          })}
          <div className="my-1 border-t border-border" />
          <Link to="/orgs/new" className={item(false)} onClick={done}>
            <Plus className="size-4" aria-hidden="true" />
            New organization
          </Link>
        </div>
      ) : null}
    </div>
  );
}
