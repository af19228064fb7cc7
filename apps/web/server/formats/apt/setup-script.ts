// setup.deb.sh: what `curl -fsSL …/setup.deb.sh | sudo bash` runs. Installs the project's
// keyring under /etc/apt/keyrings, a deb822 source with Signed-By, credentials for a private
// repository in /etc/apt/auth.conf.d (mode 600) when a read token is given — the one the script
// was fetched with (`curl -u TOKEN:`), or PACKYARD_TOKEN — then runs apt-get update.
// PACKYARD_ROOT installs into another root (used by tests and image builds), and apt-get
// updates that root's lists.
import { embeddableToken, shellQuote } from "../setup-scripts.ts";

export function renderDebSetupScript(options: {
  baseUrl: string;
  owner: string;
  slug: string;
  private: boolean;
  /** The read token the script was fetched with (`curl -u TOKEN: …`): written unless PACKYARD_TOKEN is set. */
  token?: string;
}): string {
  const repoUrl = `${options.baseUrl}/dl/${options.owner}/${options.slug}/deb`;
  const keyUrl = `${options.baseUrl}/dl/${options.owner}/${options.slug}/keyring.gpg`;
  const name = `packyard-${options.owner}-${options.slug}`;
  const url = new URL(options.baseUrl);
  // apt sends auth.conf credentials over plain http only when the entry names http:// itself.
  const machine = `${url.protocol === "http:" ? "http://" : ""}${url.host}/dl/${options.owner}/${options.slug}/deb`;
  return `#!/bin/sh
# Packyard: adds the APT repository of ${options.owner}/${options.slug}.
#   curl -fsSL ${options.baseUrl}/dl/${options.owner}/${options.slug}/setup.deb.sh | sudo bash
# Environment: PACKYARD_TOKEN (a read token, for private repositories), PACKYARD_DISTRIBUTION
# (default stable), PACKYARD_ROOT (install into another root instead of /).
set -eu

REPO_URL=${shellQuote(repoUrl)}
KEY_URL=${shellQuote(keyUrl)}
NAME=${shellQuote(name)}
MACHINE=${shellQuote(machine)}
ROOT="\${PACKYARD_ROOT:-}"
DISTRIBUTION="\${PACKYARD_DISTRIBUTION:-stable}"
TOKEN="\${PACKYARD_TOKEN:-${embeddableToken(options.token)}}"
${
  options.private
    ? `
if [ -z "$TOKEN" ]; then
  echo "This repository is private: fetch this script with your read token (curl -fsSL -u TOKEN: …), or set PACKYARD_TOKEN to it." >&2
  exit 1
fi
`
    : ""
}
if [ -z "$ROOT" ] && [ "$(id -u)" -ne 0 ]; then
  echo "Run this as root (sudo), or set PACKYARD_ROOT." >&2
  exit 1
fi

fetch() {
  if command -v curl >/dev/null 2>&1; then
    if [ -n "$TOKEN" ]; then curl -fsSL -H "Authorization: Bearer $TOKEN" "$1"; else curl -fsSL "$1"; fi
  elif command -v wget >/dev/null 2>&1; then
    if [ -n "$TOKEN" ]; then wget -qO- --header="Authorization: Bearer $TOKEN" "$1"; else wget -qO- "$1"; fi
  else
    echo "Neither curl nor wget is installed." >&2
    exit 1
  fi
}

install -d -m 0755 "$ROOT/etc/apt/keyrings" "$ROOT/etc/apt/sources.list.d"
KEYRING="$ROOT/etc/apt/keyrings/$NAME.gpg"
fetch "$KEY_URL" > "$KEYRING.tmp"
chmod 0644 "$KEYRING.tmp"
mv "$KEYRING.tmp" "$KEYRING"

if [ -n "$TOKEN" ]; then
  install -d -m 0755 "$ROOT/etc/apt/auth.conf.d"
  umask 077
  printf 'machine %s login token password %s\\n' "$MACHINE" "$TOKEN" > "$ROOT/etc/apt/auth.conf.d/$NAME.conf"
  umask 022
fi

cat > "$ROOT/etc/apt/sources.list.d/$NAME.sources" <<SOURCES
Types: deb
URIs: $REPO_URL
Suites: $DISTRIBUTION
Components: main
Signed-By: /etc/apt/keyrings/$NAME.gpg
SOURCES
if [ -n "$ROOT" ]; then
  # Inside another root, apt reads the keyring by its path in this filesystem.
  sed -i "s|^Signed-By: .*|Signed-By: $KEYRING|" "$ROOT/etc/apt/sources.list.d/$NAME.sources"
  # apt-get then reads that root's sources, keyrings and lists, not this machine's.
  install -d -m 0755 "$ROOT/var/lib/apt/lists/partial" "$ROOT/var/cache/apt/archives/partial"
  set -- -o "Dir=$ROOT/" -o "Dir::State::status=$ROOT/var/lib/dpkg/status"
else
  set --
fi
apt-get "$@" update
if [ -n "$ROOT" ]; then
  echo "Added $REPO_URL ($DISTRIBUTION) to $ROOT. Install packages with: apt-get $* install <package>"
else
  echo "Added $REPO_URL ($DISTRIBUTION). Install packages with: apt-get install <package>"
fi
`;
}

/** The deb822 snippet shown on project and release pages. */
export function renderDebSources(options: {
  baseUrl: string;
  owner: string;
  slug: string;
  distribution?: string;
}): string {
  const name = `packyard-${options.owner}-${options.slug}`;
  return `Types: deb
URIs: ${options.baseUrl}/dl/${options.owner}/${options.slug}/deb
Suites: ${options.distribution ?? "stable"}
Components: main
Signed-By: /etc/apt/keyrings/${name}.gpg
`;
}
