import { describe, expect, it } from "vitest";
import { decompressBounded } from "./bounded-decompress.ts";
import { DebFormatError } from "./deb-format-error.ts";
import { compress, testCompressions } from "./test-deb-builder.ts";

const payload = new TextEncoder().encode("control tar bytes ".repeat(1000));

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return error instanceof DebFormatError ? error.code : String(error);
  }
  return undefined;
}

describe("decompressBounded", () => {
  it.each(testCompressions)("round-trips %s", async (compression) => {
    const output = await decompressBounded(compress(payload, compression), compression, 1 << 20);
    expect(output).toEqual(payload);
  });

  it.each(testCompressions)("stops %s output at the cap", async (compression) => {
    const bomb = new Uint8Array(16 << 20);
    const compressed = compress(bomb, compression === "none" ? "none" : compression);
    const started = performance.now();
    expect(await codeOf(decompressBounded(compressed, compression, 1 << 20))).toBe("DEB_CONTROL_TOO_LARGE");
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("allows output exactly at the cap", async () => {
    const output = await decompressBounded(compress(payload, "gzip"), "gzip", payload.length);
    expect(output.length).toBe(payload.length);
  });

  it.each(["gzip", "xz", "zstd"] as const)("reports corrupt %s data", async (compression) => {
    const compressed = compress(payload, compression);
    const truncated = compressed.subarray(0, Math.floor(compressed.length / 2));
    expect(await codeOf(decompressBounded(truncated, compression, 1 << 20))).toBe("DEB_CORRUPT_MEMBER");
    expect(await codeOf(decompressBounded(new TextEncoder().encode("garbage!"), compression, 1 << 20))).toBe(
      "DEB_CORRUPT_MEMBER",
    );
  });

  it("keeps working for xz after a cancelled and a failed stream", async () => {
    await codeOf(decompressBounded(compress(new Uint8Array(4 << 20), "xz"), "xz", 1024));
    await codeOf(decompressBounded(new TextEncoder().encode("garbage!"), "xz", 1024));
    const output = await decompressBounded(compress(payload, "xz"), "xz", 1 << 20);
    expect(output).toEqual(payload);
  });
});
