// The error boundary of root and of the frame below it (routes/frame.tsx, decision 062): a thrown
// 404 is the not-found view, a 403 the forbidden view, anything else the generic error view —
// each in its signed-in variant when root's loader found a session user.
import { isRouteErrorResponse, useRouteError, useRouteLoaderData } from "react-router";
import type { loader as rootLoader } from "../root.tsx";
import { ErrorView, ForbiddenView, NotFoundView } from "./status-pages.tsx";

export function RouteErrorBoundary() {
  const error = useRouteError();
  const rootData = useRouteLoaderData<typeof rootLoader>("root");
  const signedIn = Boolean(rootData?.user);
  if (isRouteErrorResponse(error) && error.status === 404) {
    return <NotFoundView signedIn={signedIn} />;
  }
  if (isRouteErrorResponse(error) && error.status === 403) {
    return (
      <ForbiddenView signedIn={signedIn} reason={typeof error.data === "string" ? error.data : undefined} />
    );
  }
  // On the server, entry.server's handleError has logged (and reported) it already.
  if (!isRouteErrorResponse(error) && typeof document !== "undefined") console.error(error);
  return <ErrorView signedIn={signedIn} />;
}
