// xz decoding with a decoder of its own per stream (decision 055). xz-decompress's
// XzReadableStream runs every stream of the process through one WebAssembly instance behind a
// process-wide lock held until the stream ends, so one slowly arriving Packages.xz made every
// other xz stream (another user's .deb upload) wait for it. The decoder here is the same one,
// xz-embedded compiled to WebAssembly as that package ships it, but each stream gets its own
// instance (its own memory): nothing is shared, nothing waits.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

// The WebAssembly global as used here (this package's lib is ES2024, without the DOM's types).
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
};

const XZ_OK = 0;
const XZ_STREAM_END = 1;

interface XzExports {
  memory: { buffer: ArrayBuffer };
  create_context(): number;
  destroy_context(context: number): void;
  supply_input(context: number, length: number): void;
  get_next_output(context: number): number;
}

let compiled: object | undefined;

/** The package's decoder, compiled once (instances are cheap; compiling is not). */
function decoderModule(): object {
  if (!compiled) {
    const bundle = readFileSync(createRequire(import.meta.url).resolve("xz-decompress"), "utf8");
    const base64 = /data:application\/wasm;base64,([A-Za-z0-9+/=]+)/.exec(bundle)?.[1];
    if (!base64) throw new Error("xz-decompress ships no WebAssembly decoder where expected");
    compiled = new WebAssembly.Module(Buffer.from(base64, "base64"));
  }
  return compiled;
}

/**
 * One decoder: its context's header (uint32s) holds the buffer size, the input buffer's address,
 * the input position and size, the output buffer's address and the output position.
 */
class XzDecoder {
  readonly #exports: XzExports;
  readonly #context: number;
  readonly bufferSize: number;
  readonly #inStart: number;
  readonly #outStart: number;
  #mem8!: Uint8Array;
  #mem32!: Uint32Array;

  constructor() {
    this.#exports = new WebAssembly.Instance(decoderModule(), {}).exports as unknown as XzExports;
    this.#context = this.#exports.create_context();
    this.#refresh();
    this.bufferSize = this.#mem32[0]!;
    this.#inStart = this.#mem32[1]! - this.#context;
    this.#outStart = this.#mem32[4]! - this.#context;
  }

  /** The memory grows while decoding (the dictionary): views are made anew when it has. */
  #refresh(): void {
    const buffer = this.#exports.memory.buffer;
    if (this.#mem8?.buffer !== buffer) {
      this.#mem8 = new Uint8Array(buffer, this.#context);
      this.#mem32 = new Uint32Array(buffer, this.#context);
    }
  }

  needsInput(): boolean {
    return this.#mem32[2] === this.#mem32[3];
  }

  supply(input: Uint8Array): void {
    this.#refresh();
    this.#mem8.set(input, this.#inStart);
    this.#exports.supply_input(this.#context, input.byteLength);
    this.#refresh();
  }

  /** Decodes what it can into the output buffer and takes it out. */
  next(): { output: Uint8Array; finished: boolean } {
    const result = this.#exports.get_next_output(this.#context);
    this.#refresh();
    if (result !== XZ_OK && result !== XZ_STREAM_END)
      throw new Error(`the xz data is corrupt or cut short (decoder error ${result})`);
    const output = this.#mem8.slice(this.#outStart, this.#outStart + this.#mem32[5]!);
    this.#mem32[5] = 0;
    return { output, finished: result === XZ_STREAM_END };
  }

  dispose(): void {
    this.#exports.destroy_context(this.#context);
  }
}

/** The decompressed bytes of an xz stream, decoded as they are read. */
export function xzDecompressStream(input: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = input.getReader();
  let decoder: XzDecoder | undefined;
  let pending: Uint8Array = new Uint8Array(0);
  let inputDone = false;
  const close = () => {
    decoder?.dispose();
    decoder = undefined;
  };
  return new ReadableStream<Uint8Array>({
    start() {
      decoder = new XzDecoder();
    },
    async pull(controller) {
      try {
        // Until there is output to give (a pull that enqueues nothing is not called again).
        for (let idle = 0; decoder; ) {
          if (decoder.needsInput()) {
            if (pending.byteLength === 0) {
              const { done, value } = await reader.read();
              if (done) inputDone = true;
              else pending = value;
            }
            const length = Math.min(decoder.bufferSize, pending.byteLength);
            decoder.supply(pending.subarray(0, length));
            pending = pending.subarray(length);
          }
          const { output, finished } = decoder.next();
          if (finished) {
            close();
            if (output.byteLength > 0) controller.enqueue(output);
            controller.close();
            await reader.cancel().catch(() => {});
            return;
          }
          if (output.byteLength > 0) {
            controller.enqueue(output);
            return;
          }
          // The input has ended and the decoder gives nothing more: the stream was cut short.
          if (inputDone && ++idle > 2) throw new Error("the xz data is cut short");
        }
      } catch (error) {
        close();
        await reader.cancel(error).catch(() => {});
        throw error;
      }
    },
    async cancel(reason) {
      close();
      await reader.cancel(reason);
    },
  });
}
