// /cli: the server's own `packyard` CLI, bundled into one ES module by the web build
// (apps/cli/scripts/bundle.ts writes build/cli/), and the install script that fetches it.
// install.sh embeds the sha256 of the very bytes this process serves as packyard.mjs, so the
// script and the bundle it verifies always come from the same build (decision 026).
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Context, Hono } from "hono";

/** Everything under /cli changes only with a deploy; revalidating costs a 304. */
const CACHE_CONTROL = "public, no-cache";

interface Served {
  bundle: Buffer;
  sha256: string;
  version: string;
  script: string;
  scriptTag: string;
}

export function createCliRoutes(options: { dir: string; baseUrl: string }) {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  let served: Served | undefined;
  // Read once, on the first request: the build does not change under a running server.
  const load = (): Served | undefined => {
    if (served) return served;
    let bundle: Buffer;
    let version: string;
    try {
      bundle = readFileSync(join(options.dir, "packyard.mjs"));
      version = (JSON.parse(readFileSync(join(options.dir, "version.json"), "utf8")) as { version: string })
        .version;
    } catch {
      return undefined;
    }
    const sha256 = createHash("sha256").update(bundle).digest("hex");
    const script = installScript({ baseUrl, version, sha256 });
    served = {
      bundle,
      sha256,
      version,
      script,
      scriptTag: createHash("sha256").update(script).digest("hex"),
    };
    return served;
  };

  const answer = (c: Context, body: string | Buffer, type: string, tag: string) => {
    const etag = `"${tag}"`;
    const headers = { ETag: etag, "Cache-Control": CACHE_CONTROL };
    const match = c.req.header("if-none-match");
    if (match?.split(",").some((t) => t.trim().replace(/^W\//, "") === etag)) {
      return c.body(null, 304, headers);
    }
    return c.body(typeof body === "string" ? body : new Uint8Array(body), 200, {
      ...headers,
      "Content-Type": type,
    });
  };
  const missing = (c: Context) =>
    c.text("This server was built without its CLI bundle (npm run build makes it).\n", 404, {
      "Cache-Control": "no-store",
    });

  const app = new Hono();
  app.get("/packyard.mjs", (c) => {
    const s = load();
    return s ? answer(c, s.bundle, "text/javascript; charset=utf-8", s.sha256) : missing(c);
  });
  app.get("/packyard.mjs.sha256", (c) => {
    const s = load();
    return s ? answer(c, `${s.sha256}  packyard.mjs\n`, "text/plain; charset=utf-8", s.sha256) : missing(c);
  });
  app.get("/version.json", (c) => {
    const s = load();
    if (!s) return missing(c);
    const body = `${JSON.stringify({ version: s.version, sha256: s.sha256, url: `${baseUrl}/cli/packyard.mjs` })}\n`;
    return answer(c, body, "application/json; charset=utf-8", s.sha256);
  });
  app.get("/install.sh", (c) => {
    const s = load();
    return s ? answer(c, s.script, "text/x-shellscript; charset=utf-8", s.scriptTag) : missing(c);
  });
  return app;
}

/** A POSIX sh string literal. */
const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

export function installScript(of: { baseUrl: string; version: string; sha256: string }): string {
  return `#!/bin/sh
# Installs the Packyard CLI ${of.version} from ${of.baseUrl} into ~/.local/bin/packyard:
#   curl -fsSL ${of.baseUrl}/cli/install.sh | sh
# PACKYARD_INSTALL_DIR installs elsewhere. Needs Node.js 22 or newer.
set -eu

url=${quote(`${of.baseUrl}/cli/packyard.mjs`)}
server=${quote(of.baseUrl)}
version=${quote(of.version)}
sha256=${quote(of.sha256)}
bin_dir="\${PACKYARD_INSTALL_DIR:-\${HOME:?HOME is not set}/.local/bin}"

fail() {
  echo "packyard install: $*" >&2
  exit 1
}

if ! command -v node >/dev/null 2>&1; then
  fail "Node.js 22 or newer is required and node is not on PATH; install it (https://nodejs.org) and run this again"
fi
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || true)
case $major in '' | *[!0-9]*) major=0 ;; esac
if [ "$major" -lt 22 ]; then
  fail "Node.js 22 or newer is required; node on PATH is $(node --version 2>/dev/null || echo unknown)"
fi

tmp=$(mktemp "\${TMPDIR:-/tmp}/packyard.XXXXXX")
trap 'rm -f "$tmp"' EXIT INT TERM
if command -v curl >/dev/null 2>&1; then
  curl -fsSL "$url" -o "$tmp" || fail "could not download $url"
elif command -v wget >/dev/null 2>&1; then
  wget -q -O "$tmp" "$url" || fail "could not download $url"
else
  fail "curl or wget is required to download $url"
fi

actual=$(node -e 'process.stdout.write(require("node:crypto").createHash("sha256").update(require("node:fs").readFileSync(process.argv[1])).digest("hex"))' "$tmp")
if [ "$actual" != "$sha256" ]; then
  fail "checksum mismatch for $url: expected sha256 $sha256, got $actual; nothing was installed (if the server was just upgraded, run this again)"
fi

mkdir -p "$bin_dir"
chmod 755 "$tmp"
mv -f "$tmp" "$bin_dir/packyard.mjs"
launcher="$bin_dir/packyard.$$.tmp"
module=$(node -p 'JSON.stringify(require("node:url").pathToFileURL(process.argv[1]).href)' "$bin_dir/packyard.mjs")
printf '#!/usr/bin/env node\\nimport(%s);\\n' "$module" > "$launcher"
chmod 755 "$launcher"
mv -f "$launcher" "$bin_dir/packyard"

echo "Installed packyard $version in $bin_dir/packyard"
case ":$PATH:" in
  *":$bin_dir:"*) ;;
  *)
    echo "$bin_dir is not on your PATH; add it, for example in ~/.profile:"
    echo "  export PATH=\\"$bin_dir:\\$PATH\\""
    ;;
esac
echo "Then: packyard login --server $server"
`;
}
