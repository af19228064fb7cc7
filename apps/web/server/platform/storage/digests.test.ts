import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createDigester, digestStream } from "./digests.ts";

const hex = (algorithm: string, text: string) => createHash(algorithm).update(text).digest("hex");
const bytes = (text: string) => new TextEncoder().encode(text);

describe("digests", () => {
  it("computes sha256 always and the others only when asked", async () => {
    const only = createDigester([]);
    only.update(bytes("abc"));
    expect(await only.digest()).toEqual({ sha256: hex("sha256", "abc"), sha512: "", sha1: "", md5: "" });
    expect(await digestStream([bytes("a"), bytes("bc")])).toEqual({
      sha256: hex("sha256", "abc"),
      sha512: hex("sha512", "abc"),
      sha1: hex("sha1", "abc"),
      md5: hex("md5", "abc"),
      size: 3,
    });
  });

  it("gives the others up once the body passes the limit, never a digest of part of it", async () => {
    const within = createDigester(["sha512", "md5"], { extraUpTo: 6 });
    for (const part of ["abc", "def"]) within.update(bytes(part));
    expect(await within.digest()).toMatchObject({
      sha512: hex("sha512", "abcdef"),
      md5: hex("md5", "abcdef"),
    });
    const over = createDigester(["sha512", "md5"], { extraUpTo: 6 });
    for (const part of ["abc", "def", "g"]) over.update(bytes(part));
    expect(await over.digest()).toEqual({ sha256: hex("sha256", "abcdefg"), sha512: "", sha1: "", md5: "" });
  });

  it("keeps the digests it is told to keep past the limit (a .deb's md5 and sha1)", async () => {
    const deb = createDigester(["sha512", "sha1", "md5"], { extraUpTo: 6, keep: ["sha1", "md5"] });
    for (const part of ["abc", "def", "g"]) deb.update(bytes(part));
    expect(await deb.digest()).toEqual({
      sha256: hex("sha256", "abcdefg"),
      sha512: "",
      sha1: hex("sha1", "abcdefg"),
      md5: hex("md5", "abcdefg"),
    });
  });
});
