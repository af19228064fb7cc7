// Page actions (every request React Router answers that is not a GET or HEAD) read their body
// whole (request.formData()), so it is bounded before they see it, as /api bounds JSON: a
// declared Content-Length over the limit is refused at once, a body without one is counted as it
// streams and refused when it outgrows the limit. Files never go through page actions: the
// dashboard uploads them to the API's streaming routes (api/files.ts).
import { formatFileSize } from "@packyard/contract/file-size.ts";
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { pageErrorResponse } from "./api-errors.ts";
import { JSON_BODY_LIMIT_BYTES } from "./api-guards.ts";

/** The largest body a page action reads: the same as the API's JSON bodies. */
export const PAGE_BODY_LIMIT_BYTES = JSON_BODY_LIMIT_BYTES;

export function pageBodyLimit(): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: PAGE_BODY_LIMIT_BYTES,
    onError: (c) =>
      pageErrorResponse(
        c.req.raw,
        "PAYLOAD_TOO_LARGE",
        `Form submissions are limited to ${formatFileSize(PAGE_BODY_LIMIT_BYTES)}`,
      ),
  });
  return (c, next) => (c.req.method === "GET" || c.req.method === "HEAD" ? next() : limit(c, next));
}
