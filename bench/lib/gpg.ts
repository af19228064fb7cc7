// A throwaway gpg key the benchmarks' tools sign with (RSA-3072, like Packyard's project keys).
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { run } from "./proc.ts";

export interface Gpg {
  home: string;
  fingerprint: string;
  env: NodeJS.ProcessEnv;
}

/** A throwaway GNUPGHOME with one passphrase-less RSA-3072 signing key. */
export function makeGpgKey(dir: string): Gpg {
  const home = join(dir, "gnupg");
  rmSync(home, { recursive: true, force: true });
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const env = { ...process.env, GNUPGHOME: home };
  run(
    [
      "gpg",
      "--batch",
      "--passphrase",
      "",
      "--quick-gen-key",
      "Bench <bench@example.com>",
      "rsa3072",
      "sign",
      "never",
    ],
    { env },
  );
  const listing = run(["gpg", "--batch", "--list-secret-keys", "--with-colons"], { env });
  const fingerprint = /^fpr:+([0-9A-F]{40}):/m.exec(listing)?.[1];
  if (!fingerprint) throw new Error("gpg made no key");
  return { home, fingerprint, env };
}

/** Stops the gpg-agent this benchmark's GNUPGHOME started. */
export function stopGpgAgent(gpg: Gpg): void {
  try {
    run(["gpgconf", "--kill", "gpg-agent"], { env: gpg.env });
  } catch {
    // no agent running
  }
}
