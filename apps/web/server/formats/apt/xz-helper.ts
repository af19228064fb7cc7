// Runs xz(1) through a small helper process (xz-helper-process.ts) started once, instead of
// spawning xz from the server for every publish: a spawn forks the server, whose cost grows with
// its memory (a few ms at start, 100 ms and more at a few hundred MB) and is paid on the main
// thread. If the helper cannot start or dies, callers spawn xz themselves (tested).
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export class XzHelper {
  #child: ChildProcess | undefined;
  #failed = false;
  #calls = 0;
  #buffered: Buffer = Buffer.alloc(0);
  readonly #pending = new Map<number, { resolve(out: Buffer): void; reject(error: Error): void }>();

  /** Whether the helper may be used (false once it failed). */
  get available(): boolean {
    return !this.#failed;
  }

  /** xz's output for `args` and `input`; rejects when xz fails or the helper is unavailable. */
  run(args: readonly string[], input: readonly Uint8Array[]): Promise<Buffer> {
    const child = this.#start();
    if (!child?.stdin) return Promise.reject(new Error("the xz helper is not available"));
    const id = ++this.#calls;
    const json = Buffer.from(JSON.stringify(args));
    let inputLength = 0;
    for (const part of input) inputLength += part.byteLength;
    const head = Buffer.alloc(12);
    head.writeUInt32LE(id, 0);
    head.writeUInt32LE(4 + json.length + inputLength, 4);
    head.writeUInt32LE(json.length, 8);
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      // Referenced while a reply is awaited, so the process waits for it.
      child.ref();
      (child.stdout as unknown as { ref?(): void }).ref?.();
      child.stdin!.write(head);
      child.stdin!.write(json);
      for (const part of input) child.stdin!.write(part);
    });
  }

  #start(): ChildProcess | undefined {
    if (this.#child || this.#failed) return this.#child;
    try {
      const child = spawn(
        process.execPath,
        [fileURLToPath(new URL("./xz-helper-process.ts", import.meta.url))],
        {
          stdio: ["pipe", "pipe", "inherit"],
          // None of the server's flags (an --input-type stops a .ts file from starting).
          env: { ...process.env, NODE_OPTIONS: "" },
        },
      );
      const fail = (error: unknown) => {
        if (this.#child !== child) return;
        this.#failed = true;
        this.#child = undefined;
        for (const pending of this.#pending.values())
          pending.reject(new Error(`xz helper: ${String(error)}`));
        this.#pending.clear();
      };
      child.on("error", fail);
      child.on("exit", (code) => fail(`exited with ${code}`));
      child.stdin?.on("error", fail);
      child.stdout?.on("data", (chunk: Buffer) => this.#read(chunk));
      this.#child = child;
      this.#idle();
    } catch {
      this.#failed = true;
    }
    return this.#child;
  }

  #read(chunk: Buffer) {
    this.#buffered = this.#buffered.length === 0 ? chunk : Buffer.concat([this.#buffered, chunk]);
    while (this.#buffered.length >= 8) {
      const length = this.#buffered.readUInt32LE(4);
      if (this.#buffered.length < 8 + length) break;
      const id = this.#buffered.readUInt32LE(0);
      const status = this.#buffered[8];
      const body = Buffer.from(this.#buffered.subarray(9, 8 + length));
      this.#buffered = this.#buffered.subarray(8 + length);
      const pending = this.#pending.get(id);
      if (!pending) continue;
      this.#pending.delete(id);
      if (status === 0) pending.resolve(body);
      else pending.reject(new Error(body.toString()));
    }
    if (this.#pending.size === 0) this.#idle();
  }

  /** Idle, never what keeps the server running. */
  #idle() {
    const child = this.#child;
    if (!child) return;
    child.unref();
    (child.stdout as unknown as { unref?(): void }).unref?.();
    (child.stdin as unknown as { unref?(): void }).unref?.();
  }

  /** The helper process's id while it runs (tests look at its children). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Stops the helper (server shutdown). */
  close(): void {
    const child = this.#child;
    this.#failed = true;
    this.#child = undefined;
    child?.stdin?.end();
  }
}
