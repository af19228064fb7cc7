// The xz helper's side (xz-helper.ts): a small process that runs xz(1) for the server. Starting a
// process from the server costs a fork of the whole server (100 ms and more once it holds a few
// hundred MB: page tables); from this small process, a few ms, and none of it on the server's
// main thread.
//
// Requests on stdin, replies on stdout, each framed as: u32 id, u32 length, then `length` bytes.
// A request's bytes: u32 length of a JSON array of xz's arguments, that JSON, then xz's input.
// A reply's bytes: one status byte (0: xz's output follows; 1: an error message follows).
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";

// An xz started ahead for the next one-block request (what a publish that adds a package sends),
// by its arguments without --block-list: a request then waits for no process start (~3–5 ms of
// this machine's fork and exec, more while the server's threads hold both cores). One block
// compresses to the same bytes with or without --block-list.
const spares = new Map<string, ChildProcessWithoutNullStreams>();

function startXz(args: readonly string[]): ChildProcessWithoutNullStreams {
  const child = spawn("xz", args, { stdio: ["pipe", "pipe", "pipe"] });
  // A spare never used is ended with this process (its stdin closes); errors are reported when used.
  child.on("error", () => {});
  return child;
}

/** An xz for `args`: the spare when the request is one block and the spare is alive. */
function xzFor(args: string[]): { child: ChildProcessWithoutNullStreams; spareKey?: string } {
  const blockList = args.find((arg) => arg.startsWith("--block-list="));
  if (args.includes("--version") || blockList?.includes(",")) return { child: startXz(args) };
  const plain = args.filter((arg) => arg !== blockList);
  const spareKey = JSON.stringify(plain);
  const spare = spares.get(spareKey);
  spares.delete(spareKey);
  const alive =
    spare?.pid !== undefined && spare.exitCode === null && spare.signalCode === null && !spare.killed;
  return { child: alive ? spare : startXz(plain), spareKey };
}

/** The next spare, started once a request's xz is done (not while it competes for a core). */
function prepareSpare(spareKey: string) {
  if (!spares.has(spareKey)) spares.set(spareKey, startXz(JSON.parse(spareKey) as string[]));
}

function frame(id: number, status: number, body: Buffer) {
  const head = Buffer.alloc(9);
  head.writeUInt32LE(id, 0);
  head.writeUInt32LE(body.length + 1, 4);
  head[8] = status;
  process.stdout.write(Buffer.concat([head, body]));
}

function run(id: number, request: Buffer) {
  const argsLength = request.readUInt32LE(0);
  const args = JSON.parse(request.toString("utf8", 4, 4 + argsLength)) as string[];
  const input = request.subarray(4 + argsLength);
  const { child, spareKey } = xzFor(args);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
  child.on("error", (error) => frame(id, 1, Buffer.from(String(error))));
  child.stdin.on("error", () => {}); // reported by "close" with xz's own message
  child.on("close", (code) => {
    if (code === 0) frame(id, 0, Buffer.concat(out));
    else frame(id, 1, Buffer.from(`xz exited with ${code}: ${Buffer.concat(err).toString().trim()}`));
    if (spareKey) setImmediate(() => prepareSpare(spareKey));
  });
  child.stdin.end(input);
}

let pending: Buffer = Buffer.alloc(0);
process.stdin.on("data", (chunk: Buffer) => {
  pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
  while (pending.length >= 8) {
    const length = pending.readUInt32LE(4);
    if (pending.length < 8 + length) break;
    run(pending.readUInt32LE(0), pending.subarray(8, 8 + length));
    pending = pending.subarray(8 + length);
  }
});
// The server closed its end (or exited): nothing more to do.
process.stdin.on("end", () => process.exit(0));
