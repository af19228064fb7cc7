// xz through the helper process: the same bytes as xz spawned directly, several at once, xz's own
// errors reported, and a helper that is gone leaves the work to a spawn. A build that starts before
// the helper answered gets an encoder that waits for it.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, describe, expect, it, vi } from "vitest";
import { systemXzEncoder, XZ_FILTER } from "./xz-blocks.ts";
import { XzHelper } from "./xz-helper.ts";

const hasXz = requireTools(["xz"]);
const helper = new XzHelper();
afterAll(() => helper.close());

const texts = [Buffer.from("Package: a\nVersion: 1\n".repeat(300)), Buffer.from("\nPackage: b\n".repeat(50))];
const unxz = (xz: Buffer) => spawnSync("xz", ["-dc"], { input: xz }).stdout.toString();

/** The xz processes the helper has started and not yet seen end. */
function xzChildren(pid: number): string[] {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  return children.filter((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, "utf8").split("\0")[0] === "xz";
    } catch {
      return false;
    }
  });
}

describe.runIf(hasXz)("the xz helper", () => {
  it("makes what xz spawned here makes, for several publishes at once", async () => {
    const direct = await systemXzEncoder()(texts);
    const viaHelper = systemXzEncoder("xz", XZ_FILTER, helper);
    const outputs = await Promise.all([viaHelper(texts), viaHelper(texts.slice(1)), viaHelper(texts)]);
    expect(outputs[0]).toEqual(direct);
    expect(outputs[2]).toEqual(direct);
    expect(unxz(outputs[1]!)).toBe(texts[1]!.toString());
    expect(helper.available).toBe(true);
  });

  it("has an xz started ahead for the next one-block request (a publish's), with the same bytes", async () => {
    const one = [texts[0]!];
    const viaHelper = systemXzEncoder("xz", XZ_FILTER, helper);
    const first = await viaHelper(one);
    expect(first).toEqual(await systemXzEncoder()(one));
    // Started once the request's xz is done; it waits for the next request's input.
    await vi.waitFor(() => expect(xzChildren(helper.pid!)).toHaveLength(1));
    const waiting = xzChildren(helper.pid!)[0];
    expect(await viaHelper(one)).toEqual(first);
    expect(xzChildren(helper.pid!)).not.toContain(waiting);
    await vi.waitFor(() => expect(xzChildren(helper.pid!)).toHaveLength(1));
    // Several blocks are compressed by an xz started for them (--block-list).
    expect(unxz(await viaHelper(texts))).toBe(texts.map(String).join(""));
  });

  it("reports xz's own error and stays available", async () => {
    await expect(helper.run(["--no-such-option"], [Buffer.from("x")])).rejects.toThrow(/xz exited with/);
    expect(helper.available).toBe(true);
    expect(unxz(await helper.run(["--stdout"], [Buffer.from("still here")]))).toBe("still here");
  });

  it("leaves the work to a spawn once the helper is gone", async () => {
    const gone = new XzHelper();
    gone.close();
    expect(gone.available).toBe(false);
    const out = await systemXzEncoder("xz", XZ_FILTER, gone)(texts);
    expect(out).toEqual(await systemXzEncoder()(texts));
  });
});

/** xz-blocks.ts as a fresh process has it: nothing detected yet. */
async function freshXzBlocks(): Promise<typeof import("./xz-blocks.ts")> {
  vi.resetModules();
  return import("./xz-blocks.ts");
}

describe("an xz encoder for a build that starts before xz was found", () => {
  it.runIf(hasXz)("waits for the helper when called, then is the one detection found", async () => {
    const fresh = await freshXzBlocks();
    const early = fresh.eventualXzEncoder();
    expect(early).not.toBeNull();
    expect(await early!(texts)).toEqual(await systemXzEncoder()(texts));
    const detected = await fresh.detectXzEncoderAsync();
    expect(detected).not.toBeNull();
    expect(fresh.eventualXzEncoder()).toBe(detected);
  });

  it("fails when called on a machine without xz, and is null once that is known", async () => {
    const empty = mkdtempSync(join(tmpdir(), "packyard-no-xz-"));
    const path = process.env.PATH;
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    process.env.PATH = empty;
    try {
      const fresh = await freshXzBlocks();
      const early = fresh.eventualXzEncoder();
      expect(early).not.toBeNull();
      await expect(early!(texts)).rejects.toThrow("xz (xz-utils) not found");
      expect(fresh.eventualXzEncoder()).toBeNull();
      expect(warn).toHaveBeenCalledWith(expect.stringContaining("published without Packages.xz"));
    } finally {
      process.env.PATH = path;
      warn.mockRestore();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
