// The public site's frame: header, the page, footer. Used by the marketing layout and by the
// not-found and error views, so every public screen looks the same.
import type { ReactNode } from "react";
import { useLocation } from "react-router";
import { Island } from "../../islands/island.tsx";
import { SiteFooter } from "./site-footer.tsx";
import { SiteHeader } from "./site-header.tsx";

export function SiteShell({ signedIn, children }: { signedIn: boolean; children: ReactNode }) {
  const { pathname } = useLocation();
  return (
    <div className="flex min-h-screen flex-col">
      <a
        href="#content"
        className="sr-only focus:not-sr-only focus:fixed focus:left-4 focus:top-3 focus:z-50 focus:rounded-md focus:bg-background focus:px-3 focus:py-2 focus:text-sm focus:font-medium focus:shadow"
      >
        Skip to content
      </a>
      <Island name="site-header" component={SiteHeader} props={{ signedIn, pathname }} />
      <div id="content" className="flex-1">
        {children}
      </div>
      <SiteFooter />
    </div>
  );
}
