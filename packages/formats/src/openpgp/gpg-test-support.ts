// Test-only: runs gpgv and gpg in a throwaway home directory, so tests never touch ~/.gnupg.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface ToolResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Writes `files` into a fresh directory, runs `tool args` there with GNUPGHOME inside it. */
export function runGpgTool(
  tool: "gpg" | "gpgv",
  args: string[],
  files: Record<string, string | Uint8Array>,
): ToolResult {
  const directory = mkdtempSync(join(tmpdir(), "gpg-test-"));
  try {
    for (const [name, content] of Object.entries(files)) writeFileSync(join(directory, name), content);
    const result = spawnSync(tool, ["--homedir", directory, ...args], {
      cwd: directory,
      encoding: "utf8",
      env: { ...process.env, GNUPGHOME: directory, LC_ALL: "C" },
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

export interface GpgvResult extends ToolResult {
  /** Primary-key fingerprints of good signatures, from VALIDSIG status lines, as apt reads them. */
  goodSigners: string[];
  badSignatures: number;
}

/**
 * gpgv against a binary keyring. Its exit status is non-zero as soon as one signature's key is
 * missing, so a rotation overlap (two signatures, one key installed) is judged by the status
 * lines, the way apt does.
 */
export function gpgvVerify(
  keyring: Uint8Array,
  files: Record<string, string | Uint8Array>,
  fileArgs: string[],
): GpgvResult {
  const result = runGpgTool("gpgv", ["--status-fd", "2", "--keyring", "./keyring.gpg", ...fileArgs], {
    ...files,
    "keyring.gpg": keyring,
  });
  const goodSigners = [...result.stderr.matchAll(/^\[GNUPG:\] VALIDSIG (?:\S+ ){9}([0-9A-F]{40})/gm)].map(
    (match) => match[1]!,
  );
  const badSignatures = [...result.stderr.matchAll(/^\[GNUPG:\] BADSIG /gm)].length;
  return { ...result, goodSigners, badSignatures };
}

/** Digest algorithm ids from `gpg --list-packets` (8 = SHA-256, 10 = SHA-512, 2 = SHA-1). */
export function signatureDigestAlgorithms(signature: string | Uint8Array): number[] {
  const result = runGpgTool("gpg", ["--batch", "--list-packets", "signature"], { signature });
  return [...`${result.stdout}\n${result.stderr}`.matchAll(/digest algo (\d+)/g)].map((match) =>
    Number(match[1]),
  );
}
