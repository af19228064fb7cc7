// The public site's frame (header and footer) around every marketing page. Whether the visitor
// is signed in comes from the root loader, which reads the session.
import { Outlet, useRouteLoaderData } from "react-router";
import { SiteShell } from "../../components/marketing/site-shell.tsx";
import type { loader as rootLoader } from "../../root.tsx";

export default function MarketingLayout() {
  const root = useRouteLoaderData<typeof rootLoader>("root");
  return (
    <SiteShell signedIn={Boolean(root?.user)}>
      <Outlet />
    </SiteShell>
  );
}
