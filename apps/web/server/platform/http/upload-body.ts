// An upload's body as the bytes arrive on the socket. The web ReadableStream a Request offers
// (Readable.toWeb over the Node request, and any stream wrapped around it) copies every chunk
// into a new Uint8Array and passes it through a promise per layer, which at upload speeds costs
// more than hashing it (the copies, and the garbage collection they cause: decision 036). When
// the server is @hono/node-server and nothing has started reading the Node request yet, its
// chunks are read directly; otherwise (app.request in tests, a body already being read) the
// web stream is.
import type { IncomingMessage } from "node:http";

/** Bodies uploadBody() reads from the socket: chunks nobody else holds once read. */
const fromSocket = new WeakSet<object>();

/**
 * Whether `body` came from the socket (uploadBody), so that its chunks may be released once
 * the blob store has hashed and written them (StageOptions.releaseChunks).
 */
export const isSocketBody = (body: object): boolean => fromSocket.has(body);

/** Byte counters (metrics.ts countUploadBytes) of requests whose body is read directly. */
const counters = new WeakMap<IncomingMessage, (bytes: number) => void>();

/** The Node request behind `env` when nothing has read its body yet. */
function unreadIncoming(env: unknown): IncomingMessage | undefined {
  const incoming = (env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming || incoming.readableDidRead || incoming.listenerCount("data") > 0) return undefined;
  // Only a plain HTTP/1 request (an HTTP/2 one has its own stream).
  return typeof incoming.socket?.setNoDelay === "function" ? incoming : undefined;
}

/**
 * Counts the body's bytes as uploadBody() reads them, when it will read the Node request
 * directly; false when it will not (the caller then counts through the web stream).
 */
export function countDirectBody(request: Request, env: unknown, count: (bytes: number) => void): boolean {
  const incoming = unreadIncoming(env);
  if (!incoming || request.bodyUsed) return false;
  counters.set(incoming, count);
  return true;
}

async function* counted(incoming: IncomingMessage, count: (bytes: number) => void) {
  for await (const chunk of incoming as AsyncIterable<Uint8Array>) {
    count(chunk.byteLength);
    yield chunk;
  }
}

export function uploadBody(request: Request, env: unknown): AsyncIterable<Uint8Array> | undefined {
  const incoming = unreadIncoming(env);
  if (incoming && !request.bodyUsed) {
    const count = counters.get(incoming);
    const body = count ? counted(incoming, count) : incoming;
    fromSocket.add(body);
    return body;
  }
  return (request.body ?? undefined) as AsyncIterable<Uint8Array> | undefined;
}
