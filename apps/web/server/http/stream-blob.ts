// Streams a stored blob as an HTTP response body, closing the file if the client goes away.
import type { BlobStore } from "../storage/blob-store.ts";

export function streamBlob(
  store: BlobStore,
  sha256: string,
  size: number,
  headers: Record<string, string>,
  method: string,
): Response {
  const all = { "content-length": String(size), ...headers };
  if (method === "HEAD") return new Response(null, { status: 200, headers: all });
  const source = store.read(sha256);
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      try {
        for await (const chunk of source) controller.enqueue(chunk as Uint8Array);
        controller.close();
      } catch (error) {
        controller.error(error);
      }
    },
    cancel() {
      source.destroy();
    },
  });
  return new Response(body, { status: 200, headers: all });
}
