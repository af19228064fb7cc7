// The public site's header: the logo, the main links, and sign-in / sign-up (Dashboard when
// signed in). Below 1024 px the links fold into a menu opened by a button. An island on the home
// page (islands/registry.ts): it gets the path as a prop and links through SiteLink.
import { headerLinks, SIGN_IN_PATH, SIGN_UP_PATH } from "@packyard/contract/site.ts";
import { Menu, X } from "lucide-react";
import { useEffect, useState } from "react";
import { SiteLink } from "../../lib/site-link.tsx";
import { cn } from "../../lib/utils.ts";
import { Logo } from "../logo.tsx";
import { Button } from "../ui/button.tsx";

/** A link is current on its own page and below it (/compare/… for Compare, /blog/… for Blog). */
function isCurrent(pathname: string, to: string): boolean {
  const section = `/${to.split("/")[1] ?? ""}`;
  return pathname === to || pathname === section || pathname.startsWith(`${section}/`);
}

/** The menu's id: the header is on a page once. */
const MENU_ID = "site-menu";

export function SiteHeader({ signedIn, pathname }: { signedIn: boolean; pathname: string }) {
  const [open, setOpen] = useState(false);
  // A navigation closes the menu.
  useEffect(() => setOpen(false), [pathname]);

  return (
    <header className="sticky top-0 z-40 border-b border-border bg-background/90 backdrop-blur">
      <div className="mx-auto flex h-16 max-w-6xl items-center justify-between gap-4 px-4 sm:px-6">
        <SiteLink to="/" aria-label="Packyard home" className="rounded-md">
          <Logo />
        </SiteLink>
        {/* One landmark for the site's links and the account links (sign in, or the dashboard). */}
        <nav aria-label="Main" className="flex flex-1 items-center justify-end gap-2">
          <div className="hidden flex-1 items-center justify-center gap-1 lg:flex">
            {headerLinks.map(({ to, label }) => {
              const current = isCurrent(pathname, to);
              return (
                <SiteLink
                  key={to}
                  to={to}
                  aria-current={current ? "page" : undefined}
                  className={cn(
                    "rounded-md px-3 py-2 text-sm font-medium transition-colors",
                    current ? "text-foreground" : "text-muted-foreground hover:text-foreground",
                  )}
                >
                  {label}
                </SiteLink>
              );
            })}
          </div>
          <div className="flex items-center gap-2">
            {signedIn ? (
              <Button asChild size="sm">
                <SiteLink to="/dashboard">Dashboard</SiteLink>
              </Button>
            ) : (
              <>
                <Button asChild variant="ghost" size="sm" className="hidden sm:inline-flex">
                  <SiteLink to={SIGN_IN_PATH}>Sign in</SiteLink>
                </Button>
                <Button asChild size="sm">
                  <SiteLink to={SIGN_UP_PATH}>Get started</SiteLink>
                </Button>
              </>
            )}
            <Button
              variant="ghost"
              size="icon"
              className="lg:hidden"
              aria-label={open ? "Close menu" : "Open menu"}
              aria-expanded={open}
              aria-controls={MENU_ID}
              onClick={() => setOpen(!open)}
            >
              {open ? <X /> : <Menu />}
            </Button>
          </div>
        </nav>
      </div>
      <div
        id={MENU_ID}
        hidden={!open}
        className="border-t border-border bg-background px-4 pb-4 pt-2 lg:hidden"
      >
        <nav aria-label="Main menu" className="mx-auto grid max-w-6xl gap-1">
          {headerLinks.map(({ to, label }) => {
            const current = isCurrent(pathname, to);
            return (
              <SiteLink
                key={to}
                to={to}
                aria-current={current ? "page" : undefined}
                className={cn(
                  "rounded-md px-3 py-2.5 text-base font-medium",
                  current ? "bg-accent text-primary" : "text-foreground hover:bg-muted",
                )}
              >
                {label}
              </SiteLink>
            );
          })}
          {signedIn ? null : (
            <SiteLink
              to={SIGN_IN_PATH}
              className="mt-1 rounded-md border-t border-border px-3 pb-2.5 pt-3.5 text-base font-medium text-foreground hover:bg-muted sm:hidden"
            >
              Sign in
            </SiteLink>
          )}
        </nav>
      </div>
    </header>
  );
}
