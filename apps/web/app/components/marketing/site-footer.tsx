// The public site's footer: every public page, grouped, and what Packyard is in one line.
import { footerGroups } from "@packyard/contract/site.ts";
import { Link } from "react-router";
import { Logo } from "../logo.tsx";

export function SiteFooter() {
  return (
    <footer className="border-t border-border bg-muted/30">
      <div className="mx-auto grid max-w-6xl gap-10 px-4 py-12 sm:px-6 md:grid-cols-[1.4fr_repeat(3,1fr)]">
        <div className="max-w-xs">
          <Link to="/" aria-label="Packyard home" className="inline-block rounded-md">
            <Logo />
          </Link>
          <p className="mt-3 text-sm text-muted-foreground">
            Package management made simple: signed APT and YUM/DNF repositories, release pages and stable
            download URLs for what you build.
          </p>
        </div>
        {footerGroups.map((group) => (
          <nav key={group.title} aria-label={group.title}>
            <h2 className="text-sm font-semibold">{group.title}</h2>
            <ul className="mt-3 grid gap-2 text-sm">
              {group.links.map(({ to, label }) => (
                <li key={to}>
                  <Link to={to} className="text-muted-foreground hover:text-foreground">
                    {label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
        ))}
      </div>
      <div className="border-t border-border">
        <p className="mx-auto max-w-6xl px-4 py-5 text-sm text-muted-foreground sm:px-6">
          © {new Date().getFullYear()} Packyard
        </p>
      </div>
    </footer>
  );
}
