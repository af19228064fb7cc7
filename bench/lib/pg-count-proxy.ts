// A TCP proxy in front of PostgreSQL for bench/scale that counts the round trips a server
// makes. It passes the bytes through unchanged and reads the client's side of the frontend
// protocol: after the startup packet (int32 length + int32 code, with no type byte; an
// SSLRequest or GSSENCRequest is followed by another one), each message is a type byte and an
// int32 length that counts itself. A round trip is a Sync ('S', which ends an extended-protocol
// batch: Parse/Bind/Execute…) or a simple Query ('Q'); the statement text of each (the Parse of
// the batch, or the Query) is kept so the benchmark can say what the round trips were for.
import { createConnection, createServer, type Server, type Socket } from "node:net";

/** One round trip; `at` is performance.now() of this process when the client sent it. */
export interface PgRoundTrip {
  at: number;
  /** The statement's text, whitespace folded; "(no Parse)" for a Sync without one. */
  statement: string;
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

/** Reads one connection's frontend messages from the chunks the client sends. */
class FrontendReader {
  #startup = true;
  #pending = Buffer.alloc(0);
  /** Bytes of the current message's body still to skip (a message not kept). */
  #skip = 0;
  /** The Parse since the last Sync. */
  #parsed: string | undefined;

  readonly #onRoundTrip: (statement: string) => void;

  constructor(onRoundTrip: (statement: string) => void) {
    this.#onRoundTrip = onRoundTrip;
  }

  push(chunk: Buffer) {
    if (this.#skip >= chunk.length) {
      this.#skip -= chunk.length;
      return;
    }
    let data = chunk.subarray(this.#skip);
    this.#skip = 0;
    if (this.#pending.length) data = Buffer.concat([this.#pending, data]);
    let at = 0;
    for (;;) {
      if (this.#startup) {
        if (data.length - at < 8) break;
        const length = data.readInt32BE(at);
        const code = data.readInt32BE(at + 4);
        if (data.length - at < length) break;
        at += length;
        // After an SSLRequest/GSSENCRequest refused with 'N' the client sends its startup packet.
        if (code !== SSL_REQUEST && code !== GSSENC_REQUEST) this.#startup = false;
        continue;
      }
      if (data.length - at < 5) break;
      const type = String.fromCharCode(data[at]!);
      const length = data.readInt32BE(at + 1);
      const kept = type === "P" || type === "Q";
      if (!kept) {
        // The rest of a message not kept (a large Bind, CopyData) is skipped as it streams by.
        const available = data.length - at - 1;
        if (available < length) {
          this.#skip = length - available;
          at = data.length;
          break;
        }
        if (type === "S") this.#sync();
        at += 1 + length;
        continue;
      }
      if (data.length - at < 1 + length) break;
      const body = data.subarray(at + 5, at + 1 + length);
      at += 1 + length;
      if (type === "Q") this.#onRoundTrip(cString(body, 0).text);
      else {
        const name = cString(body, 0);
        this.#parsed = cString(body, name.end + 1).text;
      }
    }
    this.#pending = Buffer.from(data.subarray(at));
  }

  #sync() {
    this.#onRoundTrip(this.#parsed ?? "(no Parse)");
    this.#parsed = undefined;
  }
}

function cString(buffer: Buffer, from: number) {
  const end = buffer.indexOf(0, from);
  const stop = end < 0 ? buffer.length : end;
  return { text: buffer.toString("utf8", from, stop).replace(/\s+/g, " ").trim(), end: stop };
}

export class PgCountProxy {
  readonly server: Server;
  #log: PgRoundTrip[] = [];
  /** performance.now() when a client last sent or received bytes. */
  lastActivity = 0;
  readonly #sockets = new Set<Socket>();

  readonly #host: string;
  readonly #port: number;

  constructor(host: string, port: number) {
    this.#host = host;
    this.#port = port;
    this.server = createServer((client) => this.#connect(client));
  }

  /**
   * Listens on 127.0.0.1, a free port; returns `databaseUrl` with its host and port replaced by
   * the proxy's, for the server to connect through.
   */
  async listen(databaseUrl: string): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    const url = new URL(databaseUrl);
    url.hostname = "127.0.0.1";
    url.port = String((this.server.address() as { port: number }).port);
    return url.toString();
  }

  /** The round trips since the last call, oldest first, and a fresh log. */
  take(): PgRoundTrip[] {
    const log = this.#log;
    this.#log = [];
    return log;
  }

  #connect(client: Socket) {
    const upstream = createConnection({ host: this.#host, port: this.#port });
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    this.#sockets.add(client).add(upstream);
    const reader = new FrontendReader((statement) => this.#log.push({ at: performance.now(), statement }));
    client.on("data", (chunk: Buffer) => {
      this.lastActivity = performance.now();
      reader.push(chunk);
    });
    upstream.on("data", () => {
      this.lastActivity = performance.now();
    });
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      this.#sockets.delete(client);
      this.#sockets.delete(upstream);
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  }

  close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
