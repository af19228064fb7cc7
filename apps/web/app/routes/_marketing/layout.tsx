// The public site's header and footer.
import { Link, NavLink, Outlet, useRouteLoaderData } from "react-router";
import { Logo } from "../../components/logo.tsx";
import { Button } from "../../components/ui/button.tsx";
import type { loader as rootLoader } from "../../root.tsx";

export default function MarketingLayout() {
  const root = useRouteLoaderData<typeof rootLoader>("root");
  const signedIn = Boolean(root?.user);
  return (
    <div className="flex min-h-screen flex-col">
      <header className="sticky top-0 z-40 border-b border-border bg-background/85 backdrop-blur">
        <div className="mx-auto flex h-16 max-w-6xl items-center justify-between gap-4 px-4 sm:px-6">
          <Link to="/" aria-label="Packyard home">
            <Logo />
          </Link>
          <nav aria-label="Main" className="flex items-center gap-1 sm:gap-2">
            <NavLink
              to="/#how-it-works"
              className="hidden rounded-md px-3 py-2 text-sm text-muted-foreground hover:text-foreground sm:block"
            >
              How it works
            </NavLink>
            <NavLink
              to="/releases"
              className="hidden rounded-md px-3 py-2 text-sm text-muted-foreground hover:text-foreground sm:block"
            >
              Releases
            </NavLink>
            {signedIn ? (
              <Button asChild size="sm">
                <Link to="/dashboard">Dashboard</Link>
              </Button>
            ) : (
              <>
                <Button asChild variant="ghost" size="sm">
                  <Link to="/auth/signin">Sign in</Link>
                </Button>
                <Button asChild size="sm">
                  <Link to="/auth/signin?mode=signup">Get started</Link>
                </Button>
              </>
            )}
          </nav>
        </div>
      </header>
      <div className="flex-1">
        <Outlet />
      </div>
      <footer className="border-t border-border">
        <div className="mx-auto flex max-w-6xl flex-col gap-2 px-4 py-8 text-sm text-muted-foreground sm:flex-row sm:justify-between sm:px-6">
          <p>© {new Date().getFullYear()} Packyard — package management made simple.</p>
          <p>Signed APT and YUM repositories, release pages and stable download URLs.</p>
        </div>
      </footer>
    </div>
  );
}
