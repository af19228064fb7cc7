// Fuzzes readDeb with seeded mutations of real packages: it must answer every input with a
// result or a DebFormatError, never another error, never hang, and in bounded memory.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync, zstdCompressSync, zstdDecompressSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryInUse, prng, type Random } from "../test-support/fuzzing.ts";
import { requireTools } from "../test-support/system-tools.ts";
import { DebFormatError } from "./deb-format-error.ts";
import { type ReadDebOptions, readDeb } from "./read-deb.ts";
import {
  arArchive,
  buildTestDeb,
  sampleControl,
  type TestCompression,
  testCompressions,
} from "./test-deb-builder.ts";

// FUZZ_ITERATIONS and FUZZ_SEED run a longer or different campaign locally; the suite runs this one.
const ITERATIONS = Number(process.env.FUZZ_ITERATIONS ?? 1500);
const SEED = Number(process.env.FUZZ_SEED ?? 0xdeb5eed);
/** A read that takes this long is a hang (they take well under 10 ms). */
const DEADLINE_MS = 5000;
const MiB = 1024 * 1024;

const hasTools = requireTools(["dpkg-deb", "xz"]);

interface Member {
  name: string;
  data: Uint8Array;
}
interface Sample {
  label: string;
  bytes: Uint8Array;
  members: Member[];
  /** control.tar decompressed, for mutations of its tar headers. */
  controlTar: Uint8Array;
}

const latin1 = new TextDecoder("latin1");
const encoder = new TextEncoder();

/** Splits a well-formed sample into its ar members (the fuzzer's own view, not the reader's). */
function arMembers(deb: Uint8Array): Member[] {
  const members: Member[] = [];
  let offset = 8;
  while (offset + 60 <= deb.length) {
    const header = latin1.decode(deb.subarray(offset, offset + 60));
    const size = Number(header.slice(48, 58).trim());
    members.push({
      name: header.slice(0, 16).trim().replace(/\/$/, ""),
      data: deb.subarray(offset + 60, offset + 60 + size),
    });
    offset += 60 + size + (size % 2);
  }
  return members;
}

function compressionOf(name: string): TestCompression | "bzip2" | "lzma" {
  if (name.endsWith(".gz")) return "gzip";
  if (name.endsWith(".xz")) return "xz";
  if (name.endsWith(".zst")) return "zstd";
  if (name.endsWith(".bz2")) return "bzip2";
  if (name.endsWith(".lzma")) return "lzma";
  return "none";
}

function decompress(member: Member): Uint8Array {
  switch (compressionOf(member.name)) {
    case "gzip":
      return gunzipSync(member.data);
    case "zstd":
      return zstdDecompressSync(member.data);
    case "xz":
      return execFileSync("xz", ["-dc"], { input: member.data });
    default:
      return member.data;
  }
}

/** Re-packs members into a consistent ar archive, so a mutation inside a member is what gets read. */
function rebuild(members: readonly Member[]): Uint8Array {
  return arArchive(members.map(({ name, data }) => ({ name, data })));
}

function setField(bytes: Uint8Array, at: number, width: number, text: string, pad = 0x20) {
  const field = new Uint8Array(width).fill(pad);
  field.set(encoder.encode(text).subarray(0, width));
  bytes.set(field, at);
}

/** Ar size fields: what dpkg would refuse, what overflows, what points just past the end. */
function arSizeExtreme(random: Random, size: number, total: number): string {
  return random.pick([
    "0",
    "1",
    String(size - 1),
    String(size + 1),
    String(total),
    String(total + 1),
    "1023",
    "9999999999",
    "4294967295",
    "4294967296",
    "-1",
    "+1",
    " 1",
    "1 2",
    "0x10",
    "1e3",
    "",
    "٣",
    String(random.int(2 ** 31)),
  ]);
}

/** Tar size fields: huge octal, GNU base-256 (positive, negative, past 2^53), junk. */
function tarSizeExtreme(random: Random, size: number): Uint8Array {
  const octal = (value: number) => encoder.encode(`${value.toString(8).padStart(11, "0")}\0`);
  const base256 = (first: number, fill: number) => {
    const field = new Uint8Array(12).fill(fill);
    field[0] = first;
    return field;
  };
  return random.pick([
    () => octal(0),
    () => octal(size + 1),
    () => octal(size + 512),
    () => octal(0o77777777777),
    () => encoder.encode("77777777777 "),
    () => encoder.encode("999999999999"),
    () => encoder.encode("            "),
    () => encoder.encode("0000000001\0\0"),
    () => base256(0x80, 0xff),
    () => base256(0x80, 0x00),
    () => base256(0xff, 0xff),
    () => base256(0xc0, 0x00),
    () => {
      const field = base256(0x80, 0);
      field[11] = random.int(256);
      field[10] = random.int(256);
      return field;
    },
  ])();
}

function tarChecksum(header: Uint8Array) {
  header.fill(0x20, 148, 156);
  const sum = header.reduce((total, byte) => total + byte, 0);
  header.set(encoder.encode(`${sum.toString(8).padStart(6, "0")}\0 `), 148);
}

/** Mutates a header of the (decompressed) control tar: size, type, name, pax records. */
function mutateTar(tar: Uint8Array, random: Random): Uint8Array {
  const out = Uint8Array.from(tar);
  const headers: number[] = [];
  for (let at = 0; at + 512 <= out.length; ) {
    const block = out.subarray(at, at + 512);
    if (block.every((byte) => byte === 0)) break;
    headers.push(at);
    const size = Number.parseInt(latin1.decode(block.subarray(124, 135)), 8) || 0;
    at += 512 + Math.ceil(size / 512) * 512;
  }
  if (headers.length === 0) return out;
  const at = random.pick(headers);
  const header = out.subarray(at, at + 512);
  const size = Number.parseInt(latin1.decode(header.subarray(124, 135)), 8) || 0;
  switch (random.int(5)) {
    case 0:
    case 1:
      header.set(tarSizeExtreme(random, size), 124);
      break;
    case 2:
      // Typeflags that make the reader treat the data as metadata (long names, pax records).
      header[156] = random.pick([0x4c, 0x78, 0x67, 0x4b, 0x35, 0x32, 0x37, 0x00, 0xff]);
      break;
    case 3: {
      // A pax record with a length field that lies.
      const record = random.pick(["99999 path=x\n", "0 path=x\n", "-5 path=x\n", "12 path=control", "x"]);
      header[156] = 0x78;
      setField(header, 124, 12, `${record.length.toString(8).padStart(11, "0")}\0`, 0);
      if (at + 512 + record.length <= out.length) out.set(encoder.encode(record), at + 512);
      break;
    }
    default:
      // The name: unterminated, empty, or "control" in the prefix field.
      random.next() < 0.5 ? header.fill(0x41, 0, 100) : header.fill(0, 0, 100);
      if (random.next() < 0.5) setField(header, 345, 155, "control", 0);
  }
  if (random.next() < 0.7) tarChecksum(header);
  return out;
}

function recompress(tar: Uint8Array, name: string): Member {
  // xz re-encoding would spawn a process per input: such members go back as gzip.
  switch (compressionOf(name)) {
    case "zstd":
      return { name, data: zstdCompressSync(tar) };
    case "none":
      return { name, data: tar };
    default:
      return { name: "control.tar.gz", data: gzipSync(tar) };
  }
}

/** Decompresses to twice the 8 MiB control.tar cap: the reader must stop at the cap. */
const bomb = gzipSync(new Uint8Array(16 * MiB));

function mutate(sample: Sample, random: Random): { label: string; bytes: Uint8Array } {
  const members = sample.members.map((member) => ({ ...member }));
  const controlIndex = members.findIndex((member) => member.name.startsWith("control.tar"));
  const dataIndex = members.findIndex((member) => member.name.startsWith("data.tar"));
  const kind = random.int(6);
  let bytes: Uint8Array;
  let label: string;
  switch (kind) {
    case 0: {
      label = "byte flips";
      bytes = Uint8Array.from(sample.bytes);
      // Mostly where the reader looks: ar headers, debian-binary and control.tar.
      const hot = 8 + 3 * 60 + members[0]!.data.length + members[controlIndex]!.data.length + 2;
      for (let i = 0, n = 1 + random.int(8); i < n; i++) {
        const at = random.int(random.next() < 0.8 ? Math.min(hot, bytes.length) : bytes.length);
        bytes[at] = bytes[at]! ^ (1 << random.int(8));
      }
      break;
    }
    case 1: {
      label = "ar header field";
      bytes = Uint8Array.from(sample.bytes);
      const offsets: number[] = [];
      for (let at = 8, i = 0; i < members.length; i++) {
        offsets.push(at);
        at += 60 + members[i]!.data.length + (members[i]!.data.length % 2);
      }
      const index = random.int(members.length);
      const at = offsets[index]!;
      const what = random.int(10);
      if (what < 7) {
        setField(bytes, at + 48, 10, arSizeExtreme(random, members[index]!.data.length, bytes.length));
      } else if (what === 7) {
        setField(bytes, at, 16, random.pick(["", "/", "//", "#1/20", "control.tar.bz2", "data.tar.zz", "é"]));
      } else if (what === 8) {
        bytes[at + 58 + random.int(2)] = random.int(256);
      } else {
        // Members dropped, repeated or reordered.
        const shuffled = [...members];
        const op = random.int(3);
        if (op === 0) shuffled.splice(random.int(shuffled.length), 1);
        else if (op === 1) shuffled.splice(random.int(shuffled.length), 0, random.pick(members));
        else shuffled.reverse();
        bytes = rebuild(shuffled);
      }
      break;
    }
    case 2: {
      label = "control.tar header field";
      const control = members[controlIndex]!;
      members[controlIndex] = recompress(mutateTar(sample.controlTar, random), control.name);
      bytes = rebuild(members);
      break;
    }
    case 3: {
      label = "truncation";
      const cut =
        random.next() < 0.7
          ? random.int(Math.min(sample.bytes.length, 4096))
          : random.int(sample.bytes.length);
      bytes = sample.bytes.slice(0, cut);
      break;
    }
    default: {
      label = "compressed member corruption";
      const index = random.next() < 0.75 ? controlIndex : dataIndex;
      const member = members[index]!;
      const data = Uint8Array.from(member.data);
      // Mostly cheap corruptions; the bomb costs ~30 ms of inflating before the cap stops it.
      const what = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 5][random.int(20)]!;
      if (what <= 1) {
        for (let i = 0, n = 1 + random.int(4); i < n; i++) {
          const at = random.int(data.length);
          data[at] = data[at]! ^ (1 << random.int(8));
        }
        members[index] = { name: member.name, data };
      } else if (what === 2) {
        // Cut inside the compressed stream, with an ar size that agrees.
        members[index] = { name: member.name, data: data.subarray(0, random.int(data.length)) };
      } else if (what === 3) {
        // Trailing garbage after a complete stream.
        const junk = Uint8Array.from({ length: 1 + random.int(64) }, () => random.int(256));
        members[index] = { name: member.name, data: Uint8Array.from([...data, ...junk]) };
      } else if (what === 4) {
        // The bytes of one compression under the name of another.
        const other = random.pick(sample.members.filter((m) => m !== member));
        members[index] = { name: member.name, data: other.data };
      } else {
        members[index] = { name: index === controlIndex ? "control.tar.gz" : member.name, data: bomb };
      }
      bytes = rebuild(members);
    }
  }
  return { label, bytes };
}

/** Whole bytes, or random-sized chunks as a stream would deliver them. */
function* chunked(bytes: Uint8Array, random: Random): Generator<Uint8Array> {
  for (let at = 0; at < bytes.length; ) {
    const size = 1 + random.int(random.next() < 0.5 ? 64 : 8192);
    yield bytes.subarray(at, at + size);
    at += size;
  }
}

function withDeadline<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: no answer after ${DEADLINE_MS} ms (hang)`)),
      DEADLINE_MS,
    );
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

describe("fuzzing the .deb reader", () => {
  const samples: Sample[] = [];
  const directory = mkdtempSync(join(tmpdir(), "deb-fuzz-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  beforeAll(() => {
    const add = (label: string, bytes: Uint8Array) => {
      const members = arMembers(bytes);
      const control = members.find((member) => member.name.startsWith("control.tar"))!;
      samples.push({ label, bytes, members, controlTar: decompress(control) });
    };
    const compressions = hasTools ? testCompressions : testCompressions.filter((c) => c !== "xz");
    for (const compression of compressions) {
      add(
        `builder ${compression}`,
        buildTestDeb({
          controlCompression: compression,
          dataCompression: compression,
          controlFiles: [
            { name: "./md5sums", data: "d41d8cd98f00b204e9800998ecf8427e  usr/bin/hello-world\n" },
            { name: `./${"long-script-name-".repeat(8)}postinst`, data: "#!/bin/sh\n" },
          ],
        }),
      );
    }
    if (!hasTools) return;
    // Real packages, as dpkg-deb builds them.
    for (const compression of ["gzip", "xz", "zstd", "none"]) {
      const root = join(directory, `pkg-${compression}`);
      mkdirSync(join(root, "DEBIAN"), { recursive: true });
      mkdirSync(join(root, "usr/share/doc/fuzzed"), { recursive: true });
      writeFileSync(join(root, "DEBIAN/control"), sampleControl.replace("hello-world", "fuzzed"));
      writeFileSync(join(root, "DEBIAN/conffiles"), "/etc/fuzzed.conf\n");
      writeFileSync(join(root, "DEBIAN/postinst"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
      mkdirSync(join(root, "etc"));
      writeFileSync(join(root, "etc/fuzzed.conf"), "x=1\n");
      writeFileSync(join(root, "usr/share/doc/fuzzed/README"), "fuzz ".repeat(2000));
      const path = join(directory, `fuzzed-${compression}.deb`);
      execFileSync("dpkg-deb", ["--root-owner-group", `-Z${compression}`, "--build", root, path], {
        stdio: "ignore",
      });
      add(`dpkg-deb -Z${compression}`, readFileSync(path));
    }
  });

  it(`answers ${ITERATIONS} mutated packages with DebFormatError or a result, without hanging, in bounded memory`, async () => {
    // Every sample reads cleanly before it is mutated.
    for (const sample of samples)
      expect((await readDeb(sample.bytes)).name).toMatch(/^(hello-world|fuzzed)$/);
    const random = prng(SEED);
    const outcomes = new Map<string, number>();
    let peakGrowth = 0;
    let slowest = 0;
    const byLabel = new Map<string, number>();
    const started = performance.now();
    for (let i = 0; i < ITERATIONS; i++) {
      const sample = samples[i % samples.length]!;
      const { label, bytes } = mutate(sample, random);
      const options: ReadDebOptions = {
        stopAfterControl: random.next() < 0.2,
        ...(random.next() < 0.1 ? { maxDebBytes: random.int(bytes.length * 2) } : {}),
      };
      const source = random.next() < 0.5 ? bytes : chunked(bytes, random);
      const what = `iteration ${i} (seed ${SEED}, ${sample.label}, ${label})`;
      const before = memoryInUse();
      const readStarted = performance.now();
      let outcome: string;
      try {
        const parsed = await withDeadline(readDeb(source, options), what);
        JSON.stringify(parsed);
        outcome = "parsed";
      } catch (error) {
        if (!(error instanceof DebFormatError))
          throw new Error(`${what}: ${String(error)}`, { cause: error });
        outcome = error.code;
      }
      slowest = Math.max(slowest, performance.now() - readStarted);
      byLabel.set(label, Math.round((byLabel.get(label) ?? 0) + performance.now() - readStarted));
      peakGrowth = Math.max(peakGrowth, memoryInUse() - before);
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
    const elapsed = performance.now() - started;
    console.info(
      `deb fuzz: ${ITERATIONS} inputs from ${samples.length} packages in ${elapsed.toFixed(0)} ms (slowest ${slowest.toFixed(1)} ms), at most +${(peakGrowth / MiB).toFixed(1)} MiB while reading one`,
      Object.fromEntries(outcomes),
      "ms per mutation kind:",
      Object.fromEntries(byLabel),
    );
    // The control.tar cap is 8 MiB: the chunks decompressed up to it, joined once, stay under this.
    expect(peakGrowth).toBeLessThan(32 * MiB);
    // The mutations must reach past the ar container into the members.
    for (const code of [
      "DEB_TRUNCATED",
      "DEB_BAD_ARCHIVE",
      "DEB_CORRUPT_MEMBER",
      "DEB_BAD_TAR",
      "DEB_CONTROL_TOO_LARGE",
    ]) {
      expect(outcomes.get(code), code).toBeGreaterThan(0);
    }
    expect(outcomes.get("parsed")).toBeGreaterThan(0);
    // And the xz decoder's process-wide lock was released by every read: one more still works.
    if (hasTools) {
      expect(
        (
          await withDeadline(
            readDeb(samples.find((s) => s.label === "builder xz")!.bytes),
            "xz after fuzzing",
          )
        ).name,
      ).toBe("hello-world");
    }
  });
});
