// Hydrates the server-rendered document. Errors the router meets in the browser (loaders,
// actions, rendering) and React's recoverable hydration errors go to error reporting, which
// root.tsx starts when the server configured it.
import { StrictMode, startTransition } from "react";
import { hydrateRoot } from "react-dom/client";
import { isRouteErrorResponse } from "react-router";
import { HydratedRouter } from "react-router/dom";
import { reportError } from "./lib/error-reporting.client.ts";

startTransition(() => {
  hydrateRoot(
    document,
    <StrictMode>
      <HydratedRouter
        onError={(error, { location }) => {
          // A thrown 404 or redirect is an answer, not a fault.
          if (isRouteErrorResponse(error) && error.status < 500) return;
          reportError(error, { path: location.pathname });
        }}
      />
    </StrictMode>,
    { onRecoverableError: (error) => reportError(error, { phase: "hydration" }) },
  );
});
