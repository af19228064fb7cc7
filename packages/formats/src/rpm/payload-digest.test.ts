// The payload digest checked while the payload streams past: packages built by rpmbuild pass
// untouched and fail with one byte of their payload changed; old packages are checked by their
// MD5 signature over header and payload; the check holds across any chunking.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireTools } from "../test-support/system-tools.ts";
import { checkPayloadDigest } from "./payload-digest.ts";
import { readRpmPackage } from "./read-rpm.ts";
import { parseRpmFile } from "./rpm-file.ts";
import { RpmFormatError } from "./rpm-format-error.ts";
import { binaryEntry, int32Entry, stringArrayEntry } from "./rpm-header-writer.ts";
import { SigTag, Tag } from "./rpm-tags.ts";
import { buildTestRpms, type TestRpms } from "./testing/build-test-rpms.ts";
import { basicHeaderEntries, syntheticRpm } from "./testing/synthetic-rpm.ts";

const hasTools = requireTools(["rpmbuild"]);

/** Reads the package as an upload does and streams its payload through the check, in `chunk`-byte pieces. */
async function streamed(bytes: Uint8Array, chunk = 4096): Promise<Uint8Array> {
  const pieces = function* () {
    for (let at = 0; at < bytes.length; at += chunk) yield bytes.subarray(at, at + chunk);
  };
  const read = await readRpmPackage(pieces(), { keepSourceOpen: true });
  const out: Uint8Array[] = [];
  for await (const piece of checkPayloadDigest(read.file, read.rest!)) out.push(piece);
  return Buffer.concat(out);
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => "passed",
    (error: unknown) => (error instanceof RpmFormatError ? error.code : String(error)),
  );

describe.skipIf(!hasTools)("payload digests of packages built by rpmbuild", () => {
  let rpms: TestRpms;
  beforeAll(() => {
    rpms = buildTestRpms();
  });
  afterAll(() => rpms?.cleanup());

  it("passes the payload through untouched when it matches its SHA-256 digest", async () => {
    for (const path of [rpms.alpha, rpms.beta, rpms.alphaSource]) {
      const bytes = new Uint8Array(readFileSync(path));
      const file = parseRpmFile(bytes);
      expect(file.header.getNumber(Tag.PAYLOADDIGESTALGO)).toBe(8);
      for (const chunk of [1, 1000, 1 << 20])
        expect(Buffer.from(await streamed(bytes, chunk)).equals(bytes.subarray(file.headerEnd))).toBe(true);
    }
  });

  it("refuses a payload with one byte changed, its first, middle or last", async () => {
    const bytes = new Uint8Array(readFileSync(rpms.alpha));
    const { headerEnd } = parseRpmFile(bytes);
    for (const at of [headerEnd, Math.floor((headerEnd + bytes.length) / 2), bytes.length - 1]) {
      const changed = new Uint8Array(bytes);
      changed[at] = (changed[at]! + 1) & 0xff;
      expect(await failure(streamed(changed))).toBe("RPM_PAYLOAD_DIGEST_MISMATCH");
    }
    // Cut short or lengthened.
    expect(await failure(streamed(bytes.subarray(0, bytes.length - 1)))).toBe("RPM_PAYLOAD_DIGEST_MISMATCH");
    expect(await failure(streamed(Buffer.concat([bytes, Uint8Array.of(0)])))).toBe(
      "RPM_PAYLOAD_DIGEST_MISMATCH",
    );
  });
});

describe("payload digests of other packages", () => {
  const payload = new TextEncoder().encode("the payload of an old package");

  it("checks a package without a payload digest by its MD5 over header and payload", async () => {
    const unsigned = syntheticRpm({ payload });
    const header = parseRpmFile(unsigned).header.bytes;
    const md5 = createHash("md5").update(header).update(payload).digest();
    const legacy = syntheticRpm({ signature: [binaryEntry(SigTag.MD5, md5)], payload });
    expect(await failure(streamed(legacy))).toBe("passed");
    const changed = syntheticRpm({ signature: [binaryEntry(SigTag.MD5, md5)], payload: payload.with(0, 0) });
    expect(await failure(streamed(changed))).toBe("RPM_PAYLOAD_DIGEST_MISMATCH");
    // Nothing to check it against: passed through.
    expect(await failure(streamed(unsigned))).toBe("passed");
  });

  it("uses the algorithm the header names, and refuses one it does not know", async () => {
    const sha512 = createHash("sha512").update(payload).digest("hex");
    const withDigest = (algorithm: number) =>
      syntheticRpm({
        header: [
          ...basicHeaderEntries(),
          stringArrayEntry(Tag.PAYLOADDIGEST, [sha512]),
          int32Entry(Tag.PAYLOADDIGESTALGO, [algorithm]),
        ],
        payload,
      });
    expect(await failure(streamed(withDigest(10)))).toBe("passed");
    expect(await failure(streamed(withDigest(8)))).toBe("RPM_PAYLOAD_DIGEST_MISMATCH");
    expect(await failure(streamed(withDigest(99)))).toBe("RPM_UNSUPPORTED");
  });
});
