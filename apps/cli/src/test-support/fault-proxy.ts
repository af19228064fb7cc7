// A TCP proxy between the CLI and a server that spoils the first file upload (a PUT):
// "drop-mid-request" cuts the connection after part of the body has gone through, so the server
// sees an aborted upload; "drop-after-response" cuts it once the server has answered, before the
// answer reaches the client, so the file is stored but the client cannot know; "corrupt-body"
// flips one byte of the body on its way. Everything else passes untouched.
import { connect, createServer, type Socket } from "node:net";

export type Fault = "drop-mid-request" | "drop-after-response" | "corrupt-body";

export interface FaultProxy {
  url: string;
  /** How many uploads it has spoiled (at most one). */
  faults(): number;
  close(): Promise<void>;
}

export async function startFaultProxy(
  targetPort: number,
  fault: Fault,
  afterBytes = 256 * 1024,
): Promise<FaultProxy> {
  let spoiled = 0;
  const sockets = new Set<Socket>();
  const proxy = createServer((client) => {
    const upstream = connect(targetPort, "127.0.0.1");
    sockets.add(client).add(upstream);
    let upload = false;
    let forwarded = 0;
    const cut = () => {
      spoiled++;
      client.destroy();
      upstream.destroy();
    };
    client.on("data", (chunk: Buffer) => {
      if (spoiled === 0 && !upload && chunk.subarray(0, 4).toString("latin1") === "PUT ") upload = true;
      if (upload && spoiled === 0 && fault !== "drop-after-response") {
        forwarded += chunk.length;
        if (forwarded > afterBytes && fault === "drop-mid-request") return cut();
        if (forwarded > afterBytes && fault === "corrupt-body") {
          spoiled++;
          chunk[chunk.length - 1]! ^= 0xff;
        }
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (
        upload &&
        spoiled === 0 &&
        fault === "drop-after-response" &&
        chunk.toString("latin1").startsWith("HTTP/1.1 201")
      )
        return cut();
      client.write(chunk);
    });
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      from.on("end", () => to.end());
      from.on("error", () => to.destroy());
      from.on("close", () => {
        sockets.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const { port } = proxy.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    faults: () => spoiled,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        proxy.close(() => resolve());
      }),
  };
}
