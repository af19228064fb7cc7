import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Blake2b } from "./blake2b.ts";

const data = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + 3) % 256);

// Digests from Python's hashlib.blake2b(data(n), digest_size=32).
const EXPECTED: [number, string][] = [
  [0, "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8"],
  [1, "e88bd757ad5b9bedf372d8d3f0cf6c962a469db61a265f6418e1ffed86da29ec"],
  [3, "9facd640130c81e7f318a8d5c660bc1b0f5d03861ffbd4cc1358e0e904593c28"],
  [127, "c9ae3859964b35f04c54b36d33cf299d7290ee621005d28e51598a943560aaaa"],
  [128, "f0501d06597880592bc49234eef100ec1ff349058d0e9d9b753504e24af86dd6"],
  [129, "a34a4e1e03c541dfbf3099c4b6c143c022ced65c28bd7e8a10e0a098461aecf0"],
  [256, "d93ebb9c802f5630ab22516fd82b6c21bc8bd551d531349b715f046ed11ed871"],
  [1000, "d62b6c768ce1afc8367e0498ab2f8e3f7c178c35b1429f14c4604b545d200f52"],
  [300001, "67fa4f2696a8076c55391fbdb071ce2048cfb38a34460ebe11c4fa91837f12d0"],
];

describe("BLAKE2b", () => {
  it.each(EXPECTED)("hashes %i bytes to hashlib's BLAKE2b-256", (n, hex) => {
    expect(new Blake2b(32).update(data(n)).hex()).toBe(hex);
  });

  it("gives the same digest whatever the chunks", () => {
    const bytes = data(5000);
    for (const size of [1, 7, 128, 129, 1000]) {
      const hash = new Blake2b(32);
      for (let i = 0; i < bytes.length; i += size) hash.update(bytes.subarray(i, i + size));
      expect(hash.hex()).toBe(new Blake2b(32).update(bytes).hex());
    }
  });

  it("is Node's blake2b512 at 64 bytes", () => {
    for (const n of [0, 200, 4096])
      expect(new Blake2b(64).update(data(n)).hex()).toBe(
        createHash("blake2b512").update(data(n)).digest("hex"),
      );
  });
});
