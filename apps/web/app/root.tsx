import { lazy, type ReactNode, Suspense, useContext, useEffect, useState } from "react";
import {
  data,
  isRouteErrorResponse,
  Link,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLocation,
  useMatches,
  useRouteLoaderData,
} from "react-router";
import { browserErrorReporting } from "../server/platform/observability/observability.ts";
import { type ScriptTag, siteScripts } from "../server/site/site-scripts.ts";
import type { Route } from "./+types/root";
import { ProgressBar } from "./components/progress-bar.tsx";
import { RouteErrorBoundary } from "./components/route-error-boundary.tsx";
import type { IslandsHandle } from "./islands/config.ts";
import { IslandRendererContext } from "./islands/context.ts";
import { IslandScripts } from "./islands/scripts.tsx";
import { startErrorReporting } from "./lib/error-reporting.client.ts";
import { onFirstInteraction } from "./lib/first-interaction.ts";
import { InlineStyles } from "./lib/inline-styles.tsx";
import { DEFAULT_TITLE, jsonLdText, organizationJsonLd, pageMeta } from "./lib/meta.ts";
import { useNonce } from "./lib/nonce.tsx";
import { getSessionUser, services } from "./lib/session.server.ts";
import { SiteLinkProvider } from "./lib/site-link.tsx";

export async function loader({ request, context }: Route.LoaderArgs) {
  const user = await getSessionUser(request, context);
  const { config } = services(context);
  return data({
    user,
    baseUrl: config.baseUrl,
    // The optional analytics, ads, chat and heatmap scripts (production only, when configured).
    siteScripts: siteScripts(config).flatMap((script) => script.tags),
    errorReporting: browserErrorReporting(config),
  });
}

export const meta: Route.MetaFunction = ({ loaderData, location, error }) => {
  // A route that failed renders root's ErrorBoundary: its one <title> comes from here.
  if (error) {
    const notFound = isRouteErrorResponse(error) && error.status === 404;
    return [{ title: notFound ? "Page Not Found · Packyard" : DEFAULT_TITLE }];
  }
  return pageMeta({ baseUrl: loaderData?.baseUrl, path: location.pathname });
};

export const links: Route.LinksFunction = () => [
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

/**
 * Whether the server is rendering an islands document (decision 054): the page's route asks for it
 * in its handle. Never in the browser, where React Router renders every page it navigates to.
 */
function useIslandsDocument(): boolean {
  const matches = useMatches();
  if (!import.meta.env.SSR) return false;
  return (matches.at(-1)?.handle as IslandsHandle | undefined)?.hydrate === "islands";
}

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce();
  const rootData = useRouteLoaderData<typeof loader>("root");
  const { pathname } = useLocation();
  const islands = useIslandsDocument();
  const renderIsland = useContext(IslandRendererContext);
  useEffect(() => startErrorReporting(rootData?.errorReporting), [rootData?.errorReporting]);
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <InlineStyles />
        <Links />
        {pathname === "/" && rootData ? (
          <script
            type="application/ld+json"
            nonce={nonce}
            dangerouslySetInnerHTML={{ __html: jsonLdText(organizationJsonLd(rootData.baseUrl)) }}
          />
        ) : null}
        {rootData?.siteScripts.map((tag) => (
          <SiteScript key={tag.key} tag={tag} nonce={nonce} />
        ))}
      </head>
      <body className="min-h-screen bg-background text-foreground">
        <ProgressBar />
        <SiteLinkProvider value={Link}>
          <IslandRendererContext.Provider value={islands ? renderIsland : null}>
            {children}
          </IslandRendererContext.Provider>
        </SiteLinkProvider>
        {islands ? (
          <IslandScripts nonce={nonce} errorReporting={rootData?.errorReporting ?? null} />
        ) : (
          <>
            <DeferredToaster />
            <ScrollRestoration nonce={nonce} />
            <Scripts nonce={nonce} />
          </>
        )}
      </body>
    </html>
  );
}

// The toast library is loaded when a page may need it, not with the public pages' first load.
const Toaster = lazy(() => import("./components/toaster.tsx").then((m) => ({ default: m.Toaster })));
/** Public pages toast only after the visitor does something (copy, submit). */
const PUBLIC_PAGE = /^\/(?:$|pricing|features|contact|blog|compare|legal|releases)(?:\/|$)/;

/**
 * Mounts the toaster at once on the signed-in and sign-in pages (they may toast on load), and on
 * the public pages at the visitor's first interaction. Toasts raised before it mounts are
 * replayed by the library.
 */
function DeferredToaster() {
  const { pathname } = useLocation();
  const [wanted, setWanted] = useState(false);
  const publicPage = PUBLIC_PAGE.test(pathname);
  useEffect(() => {
    if (wanted) return;
    if (!publicPage) {
      setWanted(true);
      return;
    }
    return onFirstInteraction(() => setWanted(true));
  }, [wanted, publicPage]);
  return wanted ? (
    <Suspense fallback={null}>
      <Toaster />
    </Suspense>
  ) : null;
}

/** One configured site script. The browser hides nonces from the DOM, so hydration sees none. */
function SiteScript({ tag, nonce }: { tag: ScriptTag; nonce: string }) {
  if (tag.code) {
    return <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: tag.code }} />;
  }
  return (
    <script
      src={tag.src}
      async={tag.async}
      defer={tag.defer}
      crossOrigin={tag.crossOrigin}
      nonce={nonce}
      suppressHydrationWarning
      {...tag.attributes}
    />
  );
}

export default function App() {
  return <Outlet />;
}

/** Only when root's own loader fails: the pages' errors are the frame's (routes/frame.tsx). */
export const ErrorBoundary = RouteErrorBoundary;
