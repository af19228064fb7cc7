// Issue 42's benchmark: Packyard's npm registry against Verdaccio (from the npm registry), and
// its PyPI simple index against the way people host one today — a PEP 503 tree of static files
// served by nginx from disk — on the same machine, interleaved:
//   - publishing one more version into a package that has 1,000 (npm: `PUT` of the packument
//     with its attachment; PyPI: twine's upload form, against writing the wheel into the tree
//     and regenerating its page);
//   - the metadata request a client makes before an install (the abbreviated packument, the
//     simple page) at 16 concurrent clients (bench/lib/http-load.ts).
// Results: docs/benchmarks.md; method: bench/libraries/README.md.
//
//   node bench/libraries/run.ts [--versions 1000] [--runs 10] [--rounds 3] [--duration 10]
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { freePort } from "../../apps/web/test/server-process.ts";
import { httpLoad } from "../lib/http-load.ts";
import { startPackyardWithProject } from "../lib/process-packyard.ts";

const { values: args } = parseArgs({
  options: {
    versions: { type: "string", default: "1000" },
    runs: { type: "string", default: "10" },
    rounds: { type: "string", default: "3" },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "16" },
    /** "npm" or "pypi": only that half (for working on one). */
    only: { type: "string" },
    out: { type: "string", default: "bench/libraries/results/latest.json" },
  },
});
const versions = Number(args.versions);
const runs = Number(args.runs);
const rounds = Number(args.rounds);
const VERDACCIO = "6.8.0";
const scratch = mkdtempSync(join(tmpdir(), "packyard-bench-libraries-"));
/** Debian's Python, not a version manager's shim in front of it (pyenv's costs ~80 ms a start). */
const PYTHON = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
const log = (message: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${message}`);
const children: { kill: () => void }[] = [];
/** What the run started that is stopped when it ends, however it ends (a failed run too). */
const stops: (() => Promise<unknown>)[] = [];

const digest = (algorithm: string, bytes: Uint8Array, encoding: "hex" | "base64") =>
  createHash(algorithm).update(bytes).digest(encoding);
const versionOf = (i: number) => `1.0.${i}`;

// ---------------------------------------------------------------------------------------------
// npm: a tarball of one package.json, and npm's publish body for it.

/** A ustar entry's 512-byte header. */
function tarHeader(name: string, size: number): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 100);
  header.write("0000644\0", 100);
  header.write("0000000\0", 108);
  header.write("0000000\0", 116);
  header.write(`${size.toString(8).padStart(11, "0")}\0`, 124);
  header.write(
    `${Math.floor(Date.now() / 1000)
      .toString(8)
      .padStart(11, "0")}\0`,
    136,
  );
  header.write("        ", 148);
  header.write("0", 156);
  header.write("ustar\0", 257);
  header.write("00", 263);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return header;
}

function npmTarball(name: string, version: string): Buffer {
  const json = Buffer.from(JSON.stringify({ name, version, description: "Benchmark SDK", main: "index.js" }));
  const index = Buffer.from("module.exports = 42;\n");
  const pad = (b: Buffer) => Buffer.concat([b, Buffer.alloc((512 - (b.length % 512)) % 512)]);
  return gzipSync(
    Buffer.concat([
      tarHeader("package/package.json", json.length),
      pad(json),
      tarHeader("package/index.js", index.length),
      pad(index),
      Buffer.alloc(1024),
    ]),
  );
}

function npmPublishBody(name: string, version: string, registry: string): string {
  const tarball = npmTarball(name, version);
  const file = `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
  return JSON.stringify({
    _id: name,
    name,
    description: "Benchmark SDK",
    "dist-tags": { latest: version },
    versions: {
      [version]: {
        name,
        version,
        description: "Benchmark SDK",
        main: "index.js",
        _id: `${name}@${version}`,
        dist: {
          integrity: `sha512-${digest("sha512", tarball, "base64")}`,
          shasum: digest("sha1", tarball, "hex"),
          tarball: `${registry}${name}/-/${file}`,
        },
      },
    },
    _attachments: {
      [file]: {
        content_type: "application/octet-stream",
        data: tarball.toString("base64"),
        length: tarball.length,
      },
    },
  });
}

// ---------------------------------------------------------------------------------------------
// PyPI: wheels written by Python's zipfile, once, for every version.

const PYPI_NAME = "bench_sdk";
const PYPI_PROJECT = "bench-sdk";
const wheelName = (version: string) => `${PYPI_NAME}-${version}-py3-none-any.whl`;

function writeWheels(dir: string, count: number): void {
  mkdirSync(dir, { recursive: true });
  const script = `
import sys, zipfile, hashlib, base64
out, count = sys.argv[1], int(sys.argv[2])
for i in range(count):
    v = f"1.0.{i}"
    dist = f"${PYPI_NAME}-{v}.dist-info"
    files = {
        "${PYPI_NAME}/__init__.py": b"VALUE = 42\\n",
        f"{dist}/METADATA": f"Metadata-Version: 2.1\\nName: ${PYPI_NAME}\\nVersion: {v}\\nSummary: Benchmark SDK\\nRequires-Python: >=3.8\\n".encode(),
        f"{dist}/WHEEL": b"Wheel-Version: 1.0\\nGenerator: bench\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
    }
    record = "".join(f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b'=').decode()},{len(b)}\\n" for p, b in files.items()) + f"{dist}/RECORD,,\\n"
    with zipfile.ZipFile(f"{out}/${PYPI_NAME}-{v}-py3-none-any.whl", "w", zipfile.ZIP_DEFLATED) as z:
        for p, b in files.items(): z.writestr(p, b)
        z.writestr(f"{dist}/RECORD", record)
`;
  execFileSync(PYTHON, ["-c", script, dir, String(count)]);
}

/** twine's legacy upload form for one wheel. */
function uploadForm(version: string, bytes: Buffer): FormData {
  const form = new FormData();
  const fields: Record<string, string> = {
    ":action": "file_upload",
    protocol_version: "1",
    metadata_version: "2.1",
    name: PYPI_NAME,
    version,
    summary: "Benchmark SDK",
    requires_python: ">=3.8",
    filetype: "bdist_wheel",
    pyversion: "py3",
    md5_digest: digest("md5", bytes, "hex"),
    sha256_digest: digest("sha256", bytes, "hex"),
  };
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append("content", new Blob([new Uint8Array(bytes)]), wheelName(version));
  return form;
}

/**
 * The static tree's publish: the wheel copied in, its sha256 added to the tree's list, the
 * project's page and the root page written again (what a CI step or dir2pi-like script does).
 */
const REGENERATE = `
import sys, os, json, hashlib, shutil, html, gzip
root, wheel = sys.argv[1], sys.argv[2]
files = os.path.join(root, "files"); os.makedirs(files, exist_ok=True)
name = os.path.basename(wheel)
shutil.copyfile(wheel, os.path.join(files, name))
manifest = os.path.join(root, "hashes.json")
hashes = json.load(open(manifest)) if os.path.exists(manifest) else {}
with open(wheel, "rb") as f: hashes[name] = hashlib.sha256(f.read()).hexdigest()
json.dump(hashes, open(manifest + ".tmp", "w")); os.replace(manifest + ".tmp", manifest)
page = os.path.join(root, "simple", "${PYPI_PROJECT}"); os.makedirs(page, exist_ok=True)
links = "".join(f'<a href="../../files/{html.escape(n)}#sha256={h}" data-requires-python="&gt;=3.8">{html.escape(n)}</a>\\n' for n, h in sorted(hashes.items()))
open(os.path.join(page, "index.html.tmp"), "w").write(f"<!DOCTYPE html>\\n<html><head><meta name=\\"pypi:repository-version\\" content=\\"1.0\\"><title>Links for ${PYPI_PROJECT}</title></head><body><h1>Links for ${PYPI_PROJECT}</h1>\\n{links}</body></html>\\n")
os.replace(os.path.join(page, "index.html.tmp"), os.path.join(page, "index.html"))
# Precompressed beside it: nginx's gzip_static sends it to a client that takes gzip (pip does).
with open(os.path.join(page, "index.html"), "rb") as f, gzip.open(os.path.join(page, "index.html.gz.tmp"), "wb", 6) as z: z.write(f.read())
os.replace(os.path.join(page, "index.html.gz.tmp"), os.path.join(page, "index.html.gz"))
open(os.path.join(root, "simple", "index.html"), "w").write('<!DOCTYPE html>\\n<html><body><a href="${PYPI_PROJECT}/">${PYPI_PROJECT}</a>\\n</body></html>\\n')
`;

// ---------------------------------------------------------------------------------------------
// The servers.

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status < 500) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer`);
}

async function startVerdaccio(): Promise<{ url: string; token: string; pid: number }> {
  const home = join(homedir(), ".cache", "packyard-bench", `verdaccio-${VERDACCIO}`);
  const bin = join(home, "node_modules", "verdaccio", "bin", "verdaccio");
  if (!existsSync(bin)) {
    log(`installing verdaccio@${VERDACCIO} into ${home}`);
    mkdirSync(home, { recursive: true });
    execFileSync("npm", ["install", "--prefix", home, "--no-audit", "--no-fund", `verdaccio@${VERDACCIO}`], {
      stdio: ["ignore", "ignore", "inherit"],
    });
  }
  const dir = join(scratch, "verdaccio");
  mkdirSync(dir);
  const config = join(dir, "config.yaml");
  writeFileSync(
    config,
    [
      `storage: ${join(dir, "storage")}`,
      "auth:",
      "  htpasswd:",
      `    file: ${join(dir, "htpasswd")}`,
      "    max_users: 100",
      "uplinks: {}",
      "packages:",
      "  '**':",
      "    access: $all",
      "    publish: $authenticated",
      "    unpublish: $authenticated",
      "max_body_size: 100mb",
      "log: { type: stdout, format: pretty, level: error }",
      "",
    ].join("\n"),
  );
  const port = await freePort();
  const child = spawn(process.execPath, [bin, "--config", config, "--listen", `127.0.0.1:${port}`], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  children.push(child);
  const url = `http://127.0.0.1:${port}/`;
  await waitFor(`${url}-/ping`);
  const user = await fetch(`${url}-/user/org.couchdb.user:bench`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "bench", password: "a long bench password" }),
  });
  const token = ((await user.json()) as { token: string }).token;
  if (!token) throw new Error(`verdaccio user: ${user.status}`);
  return { url, token, pid: child.pid! };
}

async function startNginx(root: string): Promise<{ url: string }> {
  const port = await freePort();
  const dir = join(scratch, "nginx");
  mkdirSync(dir);
  const config = join(dir, "nginx.conf");
  writeFileSync(
    config,
    [
      "worker_processes auto;",
      // Its workers read the tree the bench wrote (a private temporary directory).
      ...(process.getuid?.() === 0 ? ["user root;"] : []),
      "daemon off;",
      `pid ${join(dir, "nginx.pid")};`,
      `error_log ${join(dir, "error.log")} error;`,
      "events { worker_connections 1024; }",
      "http {",
      "  access_log off;",
      "  sendfile on;",
      "  gzip_static on;",
      "  types { text/html html; application/octet-stream whl; }",
      `  client_body_temp_path ${dir};`,
      `  proxy_temp_path ${dir};`,
      `  fastcgi_temp_path ${dir};`,
      `  uwsgi_temp_path ${dir};`,
      `  scgi_temp_path ${dir};`,
      `  server { listen 127.0.0.1:${port}; root ${root}; index index.html; }`,
      "}",
      "",
    ].join("\n"),
  );
  const child = spawn("nginx", ["-c", config, "-p", dir], { stdio: ["ignore", "ignore", "inherit"] });
  children.push(child);
  const url = `http://127.0.0.1:${port}/`;
  await waitFor(url);
  return { url };
}

// ---------------------------------------------------------------------------------------------
// Measuring.

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
const cell = (xs: number[], digits = 0) =>
  `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

async function timed(fn: () => Promise<unknown> | unknown): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/**
 * fetch, once more when a kept-alive connection the server had just closed failed it (EPIPE,
 * a reset: nothing of the request was taken).
 */
const request = (url: string, init: RequestInit) => fetch(url, init).catch(() => fetch(url, init));

async function expectOk(response: Promise<Response>, what: string): Promise<void> {
  const res = await response;
  const text = await res.text();
  if (!res.ok) throw new Error(`${what}: ${res.status} ${text.slice(0, 300)}`);
}

async function main() {
  const npmToo = args.only !== "pypi";
  const pypiToo = args.only !== "npm";
  const packyard = await startPackyardWithProject({ slug: "sdk", name: "SDK" });
  stops.push(() => packyard.server.stop());
  const verdaccio = npmToo ? await startVerdaccio() : { url: "http://verdaccio.invalid/", token: "", pid: 0 };
  const tree = join(scratch, "tree");
  const nginx = await startNginx(tree);
  const wheels = join(scratch, "wheels");
  log(`writing ${versions + runs} wheels`);
  writeWheels(wheels, versions + runs);
  const regenerate = join(scratch, "regenerate.py");
  writeFileSync(regenerate, REGENERATE);

  const npmName = "@bench/sdk";
  const npmRegistry = `${packyard.url}/npm/bench/sdk/`;
  const pypiUpload = `${packyard.url}/pypi/bench/sdk/`;
  const basic = `Basic ${Buffer.from(`__token__:${packyard.token}`).toString("base64")}`;
  const npmPublish = {
    packyard: (v: string) =>
      expectOk(
        request(`${npmRegistry}${encodeURIComponent(npmName)}`, {
          method: "PUT",
          headers: { authorization: `Bearer ${packyard.token}`, "content-type": "application/json" },
          body: npmPublishBody(npmName, v, npmRegistry),
        }),
        `Packyard npm publish ${v}`,
      ),
    verdaccio: (v: string) =>
      expectOk(
        request(`${verdaccio.url}${encodeURIComponent(npmName)}`, {
          method: "PUT",
          headers: { authorization: `Bearer ${verdaccio.token}`, "content-type": "application/json" },
          body: npmPublishBody(npmName, v, verdaccio.url),
        }),
        `Verdaccio publish ${v}`,
      ),
  };
  const pypiPublish = {
    packyard: (v: string) =>
      expectOk(
        request(pypiUpload, {
          method: "POST",
          headers: { authorization: basic },
          body: uploadForm(v, readFileSync(join(wheels, wheelName(v)))),
        }),
        `Packyard PyPI upload ${v}`,
      ),
    nginx: (v: string) => execFileSync(PYTHON, [regenerate, tree, join(wheels, wheelName(v))]),
  };

  log(`seeding ${versions} versions into each (npm: Packyard, Verdaccio; PyPI: Packyard, the static tree)`);
  const seeding: Record<string, number> = {};
  for (const [label, publish] of [
    ...(npmToo
      ? ([
          ["npm packyard", npmPublish.packyard],
          ["npm verdaccio", npmPublish.verdaccio],
        ] as const)
      : []),
    ...(pypiToo
      ? ([
          ["pypi packyard", pypiPublish.packyard],
          ["pypi static tree", pypiPublish.nginx],
        ] as const)
      : []),
  ]) {
    const started = performance.now();
    for (let i = 0; i < versions; i++) await publish(versionOf(i));
    seeding[label] = (performance.now() - started) / versions;
    log(`${label}: ${seeding[label]!.toFixed(1)} ms per version over ${versions}`);
  }

  const publishTimes: Record<string, number[]> = {
    "npm packyard": [],
    "npm verdaccio": [],
    "pypi packyard": [],
    "pypi static tree": [],
  };
  for (let i = 0; i < runs; i++) {
    const v = versionOf(versions + i);
    const npmOrder = i % 2 ? (["packyard", "verdaccio"] as const) : (["verdaccio", "packyard"] as const);
    if (npmToo)
      for (const which of npmOrder)
        publishTimes[`npm ${which}`]!.push(await timed(() => npmPublish[which](v)));
    const pyOrder = !pypiToo
      ? []
      : i % 2
        ? (["packyard", "nginx"] as const)
        : (["nginx", "packyard"] as const);
    for (const which of pyOrder)
      publishTimes[which === "nginx" ? "pypi static tree" : "pypi packyard"]!.push(
        await timed(() => pypiPublish[which](v)),
      );
  }
  log(
    `publish one more: ${Object.entries(publishTimes)
      .filter(([, xs]) => xs.length > 0)
      .map(([k, xs]) => `${k} ${median(xs).toFixed(1)} ms`)
      .join(", ")}`,
  );

  // As the clients send them: npm asks for the abbreviated packument, pip for PEP 691 JSON, then
  // HTML (Debian's pip 23.0 asks for HTML); both take gzip.
  const abbreviated = {
    accept: "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*",
    "accept-encoding": "gzip, deflate",
  };
  const simpleHtml = { accept: "text/html", "accept-encoding": "gzip, deflate" };
  const allTargets = {
    "packument packyard": [`${npmRegistry}${encodeURIComponent(npmName)}`, abbreviated],
    "packument verdaccio": [`${verdaccio.url}${encodeURIComponent(npmName)}`, abbreviated],
    "simple packyard": [`${packyard.url}/pypi/bench/sdk/simple/${PYPI_PROJECT}/`, simpleHtml],
    "simple nginx": [`${nginx.url}simple/${PYPI_PROJECT}/`, simpleHtml],
  } as const;
  const targets = Object.fromEntries(
    Object.entries(allTargets).filter(([label]) => (label.startsWith("packument") ? npmToo : pypiToo)),
  ) as Partial<typeof allTargets>;
  const sizes: Record<string, number> = {};
  for (const [label, [url, headers]] of Object.entries(targets)) {
    const res = await fetch(url, { headers });
    const body = Buffer.from(await res.arrayBuffer());
    if (!res.ok) throw new Error(`${label}: ${res.status}`);
    // On the wire (fetch takes the gzip off what it hands over).
    sizes[label] = Number(res.headers.get("content-length") ?? body.length);
    log(
      `${label}: ${res.headers.get("content-encoding") ?? "identity"}, ${sizes[label]} bytes on the wire, ${body.length} decoded`,
    );
  }
  const load: Record<string, { rps: number[]; p50: number[]; p99: number[] }> = {};
  for (let round = 0; round < rounds; round++) {
    const labels = Object.keys(targets) as (keyof typeof allTargets)[];
    for (const label of round % 2 ? [...labels].reverse() : labels) {
      const [url, headers] = targets[label]!;
      const result = await httpLoad(url, headers, {
        seconds: Number(args.duration),
        connections: Number(args.connections),
      });
      load[label] ??= { rps: [], p50: [], p99: [] };
      load[label].rps.push(result.rps);
      load[label].p50.push(result.p50);
      load[label].p99.push(result.p99);
      log(
        `${label} round ${round + 1}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50.toFixed(1)} ms, ${(result.bytesPerSecond / 1e6).toFixed(0)} MB/s`,
      );
    }
  }

  const ratio = (a: number[], b: number[]) => (median(a) / median(b)).toFixed(2);
  if (!npmToo || !pypiToo) {
    console.log(JSON.stringify({ seeding, publishTimes, load, sizes }, null, 2));
    return;
  }
  const lines = [
    `Run ${new Date().toISOString()}; ${versions} versions before; ${runs} interleaved publishes each; ${rounds} interleaved load rounds of ${args.duration} s at ${args.connections} connections (bench/lib/http-load.ts); Verdaccio ${VERDACCIO}; ${spawnSync("nginx", ["-v"], { encoding: "utf8" }).stderr.trim()}`,
    "",
    "| publish one more version, ms | Packyard | other | other ÷ Packyard (speed) |",
    "|---|---:|---:|---:|",
    `| npm (PUT with attachment) vs Verdaccio | ${cell(publishTimes["npm packyard"]!, 1)} | ${cell(publishTimes["npm verdaccio"]!, 1)} | ${ratio(publishTimes["npm verdaccio"]!, publishTimes["npm packyard"]!)} |`,
    `| PyPI (twine's upload form) vs copying into the static tree and regenerating it | ${cell(publishTimes["pypi packyard"]!, 1)} | ${cell(publishTimes["pypi static tree"]!, 1)} | ${ratio(publishTimes["pypi static tree"]!, publishTimes["pypi packyard"]!)} |`,
    "",
    "| metadata at 16 clients, req/s (p50 ms) | Packyard | other | Packyard ÷ other |",
    "|---|---:|---:|---:|",
    `| abbreviated packument, ${sizes["packument packyard"]} vs ${sizes["packument verdaccio"]} bytes, vs Verdaccio | ${cell(load["packument packyard"]!.rps)} (${median(load["packument packyard"]!.p50).toFixed(1)}) | ${cell(load["packument verdaccio"]!.rps)} (${median(load["packument verdaccio"]!.p50).toFixed(1)}) | ${ratio(load["packument packyard"]!.rps, load["packument verdaccio"]!.rps)} |`,
    `| simple page, ${sizes["simple packyard"]} vs ${sizes["simple nginx"]} bytes, vs nginx static | ${cell(load["simple packyard"]!.rps)} (${median(load["simple packyard"]!.p50).toFixed(1)}) | ${cell(load["simple nginx"]!.rps)} (${median(load["simple nginx"]!.p50).toFixed(1)}) | ${ratio(load["simple packyard"]!.rps, load["simple nginx"]!.rps)} |`,
    "",
    `Seeding, mean per version over ${versions}: ${Object.entries(seeding)
      .map(([k, v]) => `${k} ${v.toFixed(1)} ms`)
      .join(", ")}.`,
  ];
  console.log(`\n${lines.join("\n")}`);
  mkdirSync(dirname(args.out!), { recursive: true });
  writeFileSync(args.out!, JSON.stringify({ seeding, publishTimes, load, sizes }, null, 2));
  writeFileSync(args.out!.replace(/\.json$/, ".md"), `${lines.join("\n")}\n`);
}

try {
  await main();
} finally {
  for (const child of children) child.kill();
  for (const stop of stops) await stop().catch(() => {});
  rmSync(scratch, { recursive: true, force: true });
}
