// The one choice of Cache-Control for what /dl serves. A private project's files are personal:
// no shared cache keeps them. A public project's files are cached by how they change.
export type CacheKind =
  /** Named by content or by a fixed version (packages, by-hash and checksum-named indexes, files of a fixed release): never changes. */
  | "immutable"
  /** A repository's entry file (InRelease, Release, repomd.xml): changes with every publish. */
  | "entry"
  /** A file of the `latest` release: changes when a newer release is published. */
  | "latest"
  /** A setup script, or the public keys it installs: changes with a key rotation. */
  | "script";

export function cacheControl(of: { kind: CacheKind; shared: boolean }): string {
  // Even a private project's public key or set-up script is answered only to its owner: a shared
  // cache must not hand it to anyone else.
  if (!of.shared) return "private, no-store";
  switch (of.kind) {
    case "script":
      return "public, max-age=300";
    case "immutable":
      return "public, max-age=31536000, immutable";
    case "entry":
      // Revalidated, briefly: a client sees a publish within half a minute.
      return "public, max-age=30, must-revalidate";
    case "latest":
      return "public, max-age=60";
  }
}
