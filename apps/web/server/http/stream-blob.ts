// Stored bytes as a response body, read at the client's pace: each chunk is read from storage
// only when the connection has taken the previous one (a pull stream with no read-ahead), so a
// client that stalls holds one chunk of server memory, not the file. The blob is opened before
// the response starts, so a missing one is an error answer, never a 200 that ends early.
import type { ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import type { Context } from "hono";
import type { BlobStore } from "../storage/blob-store.ts";

/** A web stream over a Node stream that reads only when the consumer asks. */
export function pullStream(source: Readable, onEnd?: () => void): ReadableStream<Uint8Array> {
  const chunks = source[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { value, done } = await chunks.next();
          if (done) {
            controller.close();
            onEnd?.();
            return;
          }
          controller.enqueue(value as Uint8Array);
        } catch (error) {
          controller.error(error);
        }
      },
      cancel() {
        source.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * A function to call when the body's last byte has been read: it runs `delivered` once the
 * response has been handed whole to the client's connection (Node's `finish`), and never for a
 * connection that closed before that. In memory (tests calling app.request) reading the body to
 * its end is delivery.
 */
export function whenDelivered(c: Context, delivered: () => void): () => void {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  return () => {
    if (!outgoing || outgoing.writableFinished) delivered();
    else outgoing.once("finish", delivered);
  };
}

export interface StreamBlobOptions {
  status?: number;
  /** Inclusive byte range, as in HTTP. */
  range?: { start: number; end: number };
  /** Called when the last byte of the body has been read (see whenDelivered). */
  onEnd?: () => void;
}

export async function streamBlob(
  store: BlobStore,
  sha256: string,
  size: number,
  headers: Record<string, string>,
  method: string,
  options: StreamBlobOptions = {},
): Promise<Response> {
  const status = options.status ?? 200;
  const all = { "content-length": String(size), ...headers };
  if (method === "HEAD") return new Response(null, { status, headers: all });
  const source = await store.open(sha256, options.range);
  return new Response(pullStream(source, options.onEnd), { status, headers: all });
}
