import { readFileSync } from "node:fs";
import * as openpgp from "openpgp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryInUse, prng, type Random } from "../test-support/fuzzing.ts";
import { requireTools } from "../test-support/system-tools.ts";
import { parseRpmPackage, readRpmPackage } from "./read-rpm.ts";
import { RpmFormatError } from "./rpm-format-error.ts";
import { signRpm } from "./sign-rpm.ts";
import { buildTestRpms, type TestRpms } from "./testing/build-test-rpms.ts";
import { syntheticRpm } from "./testing/synthetic-rpm.ts";

// FUZZ_ITERATIONS and FUZZ_SEED run a longer or different campaign locally; the suite runs this one.
const ITERATIONS = Number(process.env.FUZZ_ITERATIONS ?? 2000);
const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed);
const hasTools = requireTools(["rpmbuild"]);
const MiB = 1024 * 1024;

const EXTREMES = [
  0, 1, 2, 7, 8, 15, 16, 17, 0xff, 0xffff, 0x10000, 1_000_000, 1_000_001, 0x7fffffff, 0x80000000, 0xfffffff0,
  0xffffffff,
];

function mutate(original: Uint8Array, random: Random): Uint8Array {
  const { file } = parseRpmPackage(original);
  const bytes = Uint8Array.from(original);
  const view = new DataView(bytes.buffer);
  const headers = [
    { start: 96, count: file.signature.entries.length },
    { start: file.headerStart, count: file.header.entries.length },
  ];
  const rounds = 1 + random.int(3);
  let length = bytes.length;
  for (let round = 0; round < rounds; round++) {
    const kind = random.int(4);
    if (kind === 0) {
      // Flip a few bytes, mostly where the parser looks.
      for (let i = 0, n = 1 + random.int(8); i < n; i++) {
        const at = random.int(random.next() < 0.8 ? file.headerEnd : bytes.length);
        bytes[at] = bytes[at]! ^ (1 << random.int(8));
      }
    } else if (kind === 1) {
      length = Math.min(length, random.int(file.headerEnd + 64));
    } else {
      const header = headers[random.int(2)]!;
      const value = random.next() < 0.6 ? EXTREMES[random.int(EXTREMES.length)]! : random.int(2 ** 32);
      // An index field (tag, type, offset, count), or the intro's count and length.
      const at =
        kind === 2
          ? header.start + 16 + random.int(header.count) * 16 + 4 * random.int(4)
          : header.start + 8 + 4 * random.int(2);
      if (at + 4 <= bytes.length) view.setUint32(at, value >>> 0);
    }
  }
  return bytes.subarray(0, length);
}

describe("fuzzing the reader", () => {
  let rpms: TestRpms | undefined;
  const samples: Uint8Array[] = [];
  let signingKey: openpgp.PrivateKey;
  beforeAll(async () => {
    samples.push(syntheticRpm({}));
    if (hasTools) {
      rpms = buildTestRpms();
      for (const path of [rpms.alpha, rpms.beta, rpms.weird, rpms.alphaSource])
        samples.push(readFileSync(path));
    }
    ({ privateKey: signingKey } = await openpgp.generateKey({
      type: "ecc",
      userIDs: [{ name: "Fuzz" }],
      format: "object",
    }));
  });
  afterAll(() => rpms?.cleanup());

  it(`survives ${ITERATIONS} mutated packages with RpmFormatError or a result, in bounded memory`, async () => {
    const random = prng(SEED);
    const outcomes = new Map<string, number>();
    let signed = 0;
    // Growth while reading one input, with no collection in between: what a read allocates shows
    // even when it is garbage by the time the read returns.
    let peakGrowth = 0;
    const started = performance.now();
    for (let i = 0; i < ITERATIONS; i++) {
      const input = mutate(samples[i % samples.length]!, random);
      let outcome: string;
      const before = memoryInUse();
      try {
        const pkg = parseRpmPackage(input);
        JSON.stringify(pkg.metadata);
        outcome = "parsed";
        // Signing goes through the same headers again, and must fail the same way or not at all.
        if (signed < 150) {
          signed++;
          await signRpm(pkg.file, { signingKey });
        }
      } catch (error) {
        if (!(error instanceof RpmFormatError)) {
          throw new Error(`iteration ${i} (seed ${SEED}): ${String(error)}`, { cause: error });
        }
        outcome = error.code;
      }
      peakGrowth = Math.max(peakGrowth, memoryInUse() - before);
      // The streaming path must agree with the in-memory one.
      if (i % 10 === 0) {
        const streamed = await readRpmPackage([input.subarray(0, 500), input.subarray(500)]).then(
          () => "parsed",
          (error: unknown) => {
            if (!(error instanceof RpmFormatError)) throw error;
            return error.code;
          },
        );
        if (outcome === "parsed" || outcome === "RPM_DIGEST_MISMATCH") expect(streamed).toBe("parsed");
        else expect(streamed).toBe(outcome);
      }
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
    const elapsed = performance.now() - started;
    console.log(
      `fuzz: ${ITERATIONS} inputs in ${elapsed.toFixed(0)} ms, at most +${(peakGrowth / MiB).toFixed(1)} MiB while reading one`,
      Object.fromEntries(outcomes),
    );
    // The samples are at most a few hundred KiB; no mutation may make a read allocate more than
    // a small multiple of that.
    expect(peakGrowth).toBeLessThan(32 * MiB);
    // The mutations must actually reach the deeper checks, not just the magic.
    expect(outcomes.get("RPM_INDEX_OUT_OF_BOUNDS")).toBeGreaterThan(0);
    expect(outcomes.get("RPM_BAD_HEADER")).toBeGreaterThan(0);
    expect(outcomes.get("RPM_TRUNCATED")).toBeGreaterThan(0);
    expect(outcomes.get("RPM_TOO_LARGE")).toBeGreaterThan(0);
  });
});
