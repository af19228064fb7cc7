// BLAKE2b with a chosen digest length (RFC 7693), for the `blake2_256_digest` twine sends with
// an upload: Node's crypto has only blake2b512, and BLAKE2b-256 is not a truncation of it (the
// length is a parameter of the hash). 64-bit words are kept as pairs of 32-bit halves. Pure.

const IV = new Uint32Array([
  0xf3bcc908, 0x6a09e667, 0x84caa73b, 0xbb67ae85, 0xfe94f82b, 0x3c6ef372, 0x5f1d36f1, 0xa54ff53a, 0xade682d1,
  0x510e527f, 0x2b3e6c1f, 0x9b05688c, 0xfb41bd6b, 0x1f83d9ab, 0x137e2179, 0x5be0cd19,
]);

const SIGMA = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
  [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
  [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
  [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
  [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
].map((row) => row.map((i) => i * 2));

/** An incremental BLAKE2b (unkeyed): update() with chunks, then digest(). */
export class Blake2b {
  readonly #h = new Uint32Array(16);
  readonly #v = new Uint32Array(32);
  readonly #m = new Uint32Array(32);
  readonly #block = new Uint8Array(128);
  readonly #length: number;
  #filled = 0;
  /** Bytes compressed so far (below 2^53: the high word of the counter stays 0). */
  #counted = 0;

  constructor(digestBytes = 32) {
    if (!Number.isInteger(digestBytes) || digestBytes < 1 || digestBytes > 64)
      throw new RangeError("BLAKE2b digests are 1 to 64 bytes");
    this.#length = digestBytes;
    this.#h.set(IV);
    // Parameter block: digest length, no key, fanout 1, depth 1.
    this.#h[0]! ^= 0x01010000 ^ digestBytes;
  }

  update(bytes: Uint8Array): this {
    for (let i = 0; i < bytes.length; ) {
      if (this.#filled === 128) {
        this.#counted += 128;
        this.#compress(false);
        this.#filled = 0;
      }
      const take = Math.min(128 - this.#filled, bytes.length - i);
      this.#block.set(bytes.subarray(i, i + take), this.#filled);
      this.#filled += take;
      i += take;
    }
    return this;
  }

  digest(): Uint8Array {
    this.#counted += this.#filled;
    this.#block.fill(0, this.#filled);
    this.#compress(true);
    const out = new Uint8Array(this.#length);
    for (let i = 0; i < this.#length; i++) out[i] = this.#h[i >> 2]! >>> (8 * (i & 3));
    return out;
  }

  hex(): string {
    return Buffer.from(this.digest()).toString("hex");
  }

  #compress(last: boolean): void {
    const v = this.#v;
    const m = this.#m;
    const h = this.#h;
    const b = this.#block;
    for (let i = 0; i < 16; i++) v[i] = h[i]!;
    for (let i = 0; i < 16; i++) v[i + 16] = IV[i]!;
    v[24]! ^= this.#counted >>> 0;
    v[25]! ^= Math.floor(this.#counted / 0x100000000);
    if (last) {
      v[28] = ~v[28]!;
      v[29] = ~v[29]!;
    }
    for (let i = 0; i < 32; i++)
      m[i] = b[i * 4]! ^ (b[i * 4 + 1]! << 8) ^ (b[i * 4 + 2]! << 16) ^ (b[i * 4 + 3]! << 24);
    for (let round = 0; round < 12; round++) {
      const s = SIGMA[round]!;
      mix(v, m, 0, 8, 16, 24, s[0]!, s[1]!);
      mix(v, m, 2, 10, 18, 26, s[2]!, s[3]!);
      mix(v, m, 4, 12, 20, 28, s[4]!, s[5]!);
      mix(v, m, 6, 14, 22, 30, s[6]!, s[7]!);
      mix(v, m, 0, 10, 20, 30, s[8]!, s[9]!);
      mix(v, m, 2, 12, 22, 24, s[10]!, s[11]!);
      mix(v, m, 4, 14, 16, 26, s[12]!, s[13]!);
      mix(v, m, 6, 8, 18, 28, s[14]!, s[15]!);
    }
    for (let i = 0; i < 16; i++) h[i] = h[i]! ^ v[i]! ^ v[i + 16]!;
  }
}

/**
 * The mixing function G on the 64-bit words a, b, c, d of `v` (low halves at even indexes) with
 * the message words x and y, carries done by hand.
 */
function mix(
  v: Uint32Array,
  m: Uint32Array,
  a: number,
  b: number,
  c: number,
  d: number,
  x: number,
  y: number,
) {
  let al = v[a]!;
  let ah = v[a + 1]!;
  let bl = v[b]!;
  let bh = v[b + 1]!;
  let cl = v[c]!;
  let ch = v[c + 1]!;
  let dl = v[d]!;
  let dh = v[d + 1]!;
  let t: number;
  let u: number;
  // a = a + b + m[x]
  t = (al + bl) >>> 0;
  ah = (ah + bh + (t < al ? 1 : 0)) >>> 0;
  al = (t + m[x]!) >>> 0;
  ah = (ah + m[x + 1]! + (al < t ? 1 : 0)) >>> 0;
  // d = (d ^ a) >>> 32
  t = dl ^ al;
  dl = dh ^ ah;
  dh = t;
  // c = c + d
  t = (cl + dl) >>> 0;
  ch = (ch + dh + (t < cl ? 1 : 0)) >>> 0;
  cl = t;
  // b = (b ^ c) >>> 24
  t = bl ^ cl;
  u = bh ^ ch;
  bl = ((t >>> 24) ^ (u << 8)) >>> 0;
  bh = ((u >>> 24) ^ (t << 8)) >>> 0;
  // a = a + b + m[y]
  t = (al + bl) >>> 0;
  ah = (ah + bh + (t < al ? 1 : 0)) >>> 0;
  al = (t + m[y]!) >>> 0;
  ah = (ah + m[y + 1]! + (al < t ? 1 : 0)) >>> 0;
  // d = (d ^ a) >>> 16
  t = dl ^ al;
  u = dh ^ ah;
  dl = ((t >>> 16) ^ (u << 16)) >>> 0;
  dh = ((u >>> 16) ^ (t << 16)) >>> 0;
  // c = c + d
  t = (cl + dl) >>> 0;
  ch = (ch + dh + (t < cl ? 1 : 0)) >>> 0;
  cl = t;
  // b = (b ^ c) >>> 63, i.e. rotated left by 1
  t = bl ^ cl;
  u = bh ^ ch;
  bl = ((t << 1) ^ (u >>> 31)) >>> 0;
  bh = ((u << 1) ^ (t >>> 31)) >>> 0;
  v[a] = al;
  v[a + 1] = ah;
  v[b] = bl;
  v[b + 1] = bh;
  v[c] = cl;
  v[c + 1] = ch;
  v[d] = dl;
  v[d + 1] = dh;
}
