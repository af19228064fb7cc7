import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ImportError } from "./source.ts";
import { verifiedStream } from "./verify-stream.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(bytes(chunk));
      controller.close();
    },
  });
}

/** The chunks read before the stream ended or failed, and how it failed. */
async function drain(stream: ReadableStream<Uint8Array>) {
  const received: string[] = [];
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { received, error: undefined };
      received.push(new TextDecoder().decode(value));
    }
  } catch (error) {
    return { received, error: error as ImportError };
  }
}

describe("verifiedStream", () => {
  it("passes matching bytes through whole", async () => {
    const result = await drain(
      verifiedStream(
        streamOf("ab", "cd", "ef"),
        { size: 6, digests: [{ algorithm: "sha256", hex: sha256("abcdef") }] },
        "f.deb",
      ),
    );
    expect(result).toEqual({ received: ["ab", "cd", "ef"], error: undefined });
  });

  it("ends with CHECKSUM_MISMATCH instead of the last chunk when the digest is off", async () => {
    const result = await drain(
      verifiedStream(
        streamOf("ab", "cd", "eX"),
        { size: 6, digests: [{ algorithm: "sha256", hex: sha256("abcdef") }] },
        "f.deb",
      ),
    );
    expect(result.received).toEqual(["ab", "cd"]);
    expect(result.error).toBeInstanceOf(ImportError);
    expect(result.error).toMatchObject({
      code: "CHECKSUM_MISMATCH",
      subject: "f.deb",
      message: `f.deb: expected sha256 ${sha256("abcdef")}; the bytes do not match the checksum the index gives`,
    });
    // What the bytes' digest is stays untold (else any answer's digest could be learned).
    expect(result.error?.message).not.toContain(sha256("abcdeX"));
  });

  it("fails as soon as there are more bytes than the index says, and when there are fewer", async () => {
    const longer = await drain(
      verifiedStream(streamOf("abc", "def", "ghi"), { size: 4, digests: [] }, "f.rpm"),
    );
    expect(longer.received).toEqual([]);
    expect(longer.error?.message).toBe("f.rpm: expected 4 bytes, got more than that");
    const shorter = await drain(verifiedStream(streamOf("ab"), { size: 4, digests: [] }, "f.rpm"));
    expect(shorter.error).toMatchObject({
      code: "CHECKSUM_MISMATCH",
      message: "f.rpm: expected 4 bytes, got 2",
    });
  });

  it("checks repodata's sha (sha1) and other digests", async () => {
    const sha1 = createHash("sha1").update("abc").digest("hex");
    const ok = await drain(
      verifiedStream(streamOf("abc"), { digests: [{ algorithm: "sha", hex: sha1 }] }, "x"),
    );
    expect(ok.error).toBeUndefined();
    const bad = await drain(
      verifiedStream(streamOf("abd"), { digests: [{ algorithm: "sha", hex: sha1 }] }, "x"),
    );
    expect(bad.error?.message).toMatch(/^x: expected sha1 /);
  });
});
