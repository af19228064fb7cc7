import type { ReactNode } from "react";
import {
  data,
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useRouteError,
  useRouteLoaderData,
} from "react-router";
import type { Route } from "./+types/root";
import "./app.css";
import { ProgressBar } from "./components/progress-bar.tsx";
import { ErrorView, NotFoundView } from "./components/status-pages.tsx";
import { Toaster } from "./components/toaster.tsx";
import { DEFAULT_TITLE, pageMeta } from "./lib/meta.ts";
import { useNonce } from "./lib/nonce.tsx";
import { getSessionUser, services } from "./lib/session.server.ts";

export async function loader({ request, context }: Route.LoaderArgs) {
  const user = await getSessionUser(request, context);
  return data({ user, baseUrl: services(context).config.baseUrl });
}

export const meta: Route.MetaFunction = ({ loaderData, location }) =>
  pageMeta({ baseUrl: loaderData?.baseUrl, path: location.pathname });

export const links: Route.LinksFunction = () => [
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce();
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
      </head>
      <body className="min-h-screen bg-background text-foreground">
        <ProgressBar />
        {children}
        <Toaster />
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

export function ErrorBoundary() {
  const error = useRouteError();
  const rootData = useRouteLoaderData<typeof loader>("root");
  const signedIn = Boolean(rootData?.user);
  if (isRouteErrorResponse(error) && error.status === 404) {
    return (
      <>
        <title>{`Page Not Found · Packyard`}</title>
        <NotFoundView signedIn={signedIn} />
      </>
    );
  }
  if (!isRouteErrorResponse(error)) console.error(error);
  return (
    <>
      <title>{DEFAULT_TITLE}</title>
      <ErrorView signedIn={signedIn} />
    </>
  );
}
