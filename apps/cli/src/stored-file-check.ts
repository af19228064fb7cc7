// Is the file the server stored the file we sent? By sha256, except for an .rpm: the server
// signs it on upload, so its bytes differ from ours in the signature header only. Then the main
// header — which carries the payload's digest that rpm and dnf verify — must be byte-identical
// and the payload the same length. The server's copy is read with a Range request that stops
// before the last byte, so the check is not counted as a download.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { parseRpmFile, type RpmFile } from "../../../packages/formats/src/rpm/rpm-file.ts";
import { RpmFormatError } from "../../../packages/formats/src/rpm/rpm-format-error.ts";
import type { ReleaseFile } from "./contract.ts";

export interface LocalFile {
  path: string;
  /** The name it is uploaded as. */
  name: string;
  size: number;
  sha256: string;
}

export type StoredFileCheck = { same: true; by: "sha256" | "rpm-header" } | { same: false; why: string };

export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

export async function readFilePrefix(path: string, length: number): Promise<Uint8Array> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Lead and both headers, reading longer prefixes until they parse (a header's size is in its intro). */
export async function readRpmStart(
  readPrefix: (length: number) => Promise<Uint8Array>,
  available: number,
): Promise<RpmFile> {
  for (let length = Math.min(available, 64 * 1024); ; length = Math.min(available, length * 4)) {
    try {
      return parseRpmFile(await readPrefix(length));
    } catch (error) {
      if (!(error instanceof RpmFormatError && error.code === "RPM_TRUNCATED") || length >= available)
        throw error;
    }
  }
}

export async function checkStoredFile(
  local: LocalFile,
  stored: ReleaseFile,
  readStoredPrefix: (length: number) => Promise<Uint8Array>,
): Promise<StoredFileCheck> {
  if (stored.sha256 === local.sha256 && stored.size === local.size) return { same: true, by: "sha256" };
  const differs = { same: false, why: `server sha256 ${stored.sha256}, local ${local.sha256}` } as const;
  if (stored.kind !== "rpm") return differs;
  let ours: RpmFile;
  let theirs: RpmFile;
  try {
    ours = await readRpmStart((length) => readFilePrefix(local.path, length), local.size);
    theirs = await readRpmStart(readStoredPrefix, stored.size - 1);
  } catch (error) {
    if (error instanceof RpmFormatError)
      return { same: false, why: `cannot compare the packages: ${error.message}` };
    throw error;
  }
  const sameHeader = Buffer.from(ours.header.bytes).equals(theirs.header.bytes);
  const samePayloadLength = local.size - ours.headerEnd === stored.size - theirs.headerEnd;
  if (sameHeader && samePayloadLength) return { same: true, by: "rpm-header" };
  return {
    same: false,
    why: "the server's signed package has a different header or payload than the local file",
  };
}
