import { PassThrough } from "node:stream";
import { createReadableStreamFromReadable } from "@react-router/node";
import { isbot } from "isbot";
import type { RenderToPipeableStreamOptions } from "react-dom/server";
import { renderToPipeableStream, renderToString } from "react-dom/server";
import type { EntryContext, HandleErrorFunction, RouterContextProvider } from "react-router";
import { isRouteErrorResponse, ServerRouter } from "react-router";
import { requestContext } from "../server/platform/http/request-context.ts";
import styles from "./app.css?inline";
import { IslandRendererContext } from "./islands/context.ts";
import { InlineStylesProvider } from "./lib/inline-styles.tsx";
import { NonceProvider } from "./lib/nonce.tsx";

export const streamTimeout = 5_000;

/**
 * Loader and action errors: logged, and so reported when error reporting is on. Thrown responses
 * below 500 (a 404, a redirect) are answers, not faults; a request the client gave up on is
 * neither.
 */
export const handleError: HandleErrorFunction = (error, { request, context }) => {
  if (request.signal.aborted) return;
  if (isRouteErrorResponse(error) && error.status < 500) return;
  const { services } = (context as RouterContextProvider).get(requestContext);
  // React Router wraps some internal errors in a 500 response that carries the original.
  const cause = (isRouteErrorResponse(error) && (error as { error?: unknown }).error) || error;
  // The services' logger reports what it logs with an error (server/platform/observability/observability.ts).
  services.logger.error(`${request.method} ${new URL(request.url).pathname} failed`, cause);
};

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: RouterContextProvider,
) {
  if (request.method.toUpperCase() === "HEAD") {
    return new Response(null, { status: responseStatusCode, headers: responseHeaders });
  }
  const { nonce, services } = loadContext.get(requestContext);

  return new Promise((resolve, reject) => {
    let shellRendered = false;
    let status = responseStatusCode;
    const userAgent = request.headers.get("user-agent");
    const readyOption: keyof RenderToPipeableStreamOptions =
      (userAgent && isbot(userAgent)) || routerContext.isSpaMode ? "onAllReady" : "onShellReady";
    let timeoutId: ReturnType<typeof setTimeout> | undefined = setTimeout(
      () => abort(),
      streamTimeout + 1000,
    );

    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <InlineStylesProvider value={styles}>
          <IslandRendererContext.Provider value={renderToString}>
            <ServerRouter context={routerContext} url={request.url} nonce={nonce} />
          </IslandRendererContext.Provider>
        </InlineStylesProvider>
      </NonceProvider>,
      {
        nonce,
        [readyOption]() {
          shellRendered = true;
          const body = new PassThrough({
            final(callback) {
              clearTimeout(timeoutId);
              timeoutId = undefined;
              callback();
            },
          });
          responseHeaders.set("Content-Type", "text/html; charset=utf-8");
          pipe(body);
          resolve(new Response(createReadableStreamFromReadable(body), { headers: responseHeaders, status }));
        },
        onShellError(error: unknown) {
          reject(error);
        },
        onError(error: unknown) {
          status = 500;
          if (shellRendered && !request.signal.aborted) {
            services.logger.error(`rendering ${new URL(request.url).pathname} failed`, error);
          }
        },
      },
    );
  });
}
