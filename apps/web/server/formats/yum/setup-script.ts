// The .repo file and setup.rpm.sh for a project's YUM/DNF repository.
import { embeddableToken, shellQuote } from "../setup-scripts.ts";

export function renderRepoFile(options: {
  baseUrl: string;
  owner: string;
  slug: string;
  group?: string;
  credentials?: { username: string; password: string };
}): string {
  const suffix = options.group ? `/${options.group}` : "";
  const id = `packyard-${options.owner}-${options.slug}${options.group ? `-${options.group}` : ""}`;
  return `[${id}]
name=${options.owner}/${options.slug}${suffix} (Packyard)
baseurl=${options.baseUrl}/dl/${options.owner}/${options.slug}/rpm${suffix}
enabled=1
gpgcheck=1
repo_gpgcheck=1
gpgkey=${options.baseUrl}/dl/${options.owner}/${options.slug}/gpg.key
${options.credentials ? `username=${options.credentials.username}\npassword=${options.credentials.password}\n` : ""}`;
}

export function renderRpmSetupScript(options: {
  baseUrl: string;
  owner: string;
  slug: string;
  private: boolean;
  /** The read token the script was fetched with (`curl -u TOKEN: …`): written unless PACKYARD_TOKEN is set. */
  token?: string;
}): string {
  const base = `${options.baseUrl}/dl/${options.owner}/${options.slug}`;
  const name = `packyard-${options.owner}-${options.slug}`;
  return `#!/bin/sh
# Packyard: adds the YUM/DNF repository of ${options.owner}/${options.slug}.
#   curl -fsSL ${base}/setup.rpm.sh | sudo bash
# Environment: PACKYARD_TOKEN (a read token, for private repositories), PACKYARD_GROUP (a
# package group such as el9), PACKYARD_ROOT (install into another root instead of /).
set -eu

BASE=${shellQuote(base)}
NAME=${shellQuote(name)}
ROOT="\${PACKYARD_ROOT:-}"
GROUP="\${PACKYARD_GROUP:-}"
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
    if [ -n "$TOKEN" ]; then curl -fsSL -u "token:$TOKEN" "$1"; else curl -fsSL "$1"; fi
  else
    echo "curl is not installed." >&2
    exit 1
  fi
}

install -d -m 0755 "$ROOT/etc/yum.repos.d" "$ROOT/etc/pki/rpm-gpg"
KEY="$ROOT/etc/pki/rpm-gpg/RPM-GPG-KEY-$NAME"
fetch "$BASE/gpg.key" > "$KEY.tmp"
chmod 0644 "$KEY.tmp"
mv "$KEY.tmp" "$KEY"

REPO_URL="$BASE/rpm"
ID="$NAME"
if [ -n "$GROUP" ]; then REPO_URL="$REPO_URL/$GROUP"; ID="$NAME-$GROUP"; fi
umask 077
{
  echo "[$ID]"
  echo "name=${options.owner}/${options.slug}\${GROUP:+/$GROUP} (Packyard)"
  echo "baseurl=$REPO_URL"
  echo "enabled=1"
  echo "gpgcheck=1"
  echo "repo_gpgcheck=1"
  echo "gpgkey=file:///etc/pki/rpm-gpg/RPM-GPG-KEY-$NAME"
  if [ -n "$TOKEN" ]; then
    echo "username=token"
    echo "password=$TOKEN"
  fi
} > "$ROOT/etc/yum.repos.d/$ID.repo"
umask 022
if [ -n "$ROOT" ]; then
  # Inside another root, dnf reads the key by its path in this filesystem.
  sed -i "s|^gpgkey=.*|gpgkey=file://$KEY|" "$ROOT/etc/yum.repos.d/$ID.repo"
  rpm --root "$ROOT" --import "$KEY"
else
  rpm --import "$KEY"
fi
echo "Added $REPO_URL. Install packages with: dnf install <package>"
`;
}
