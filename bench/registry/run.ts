// Issue 41's benchmark: pushing and pulling a 200 MiB image of 4 layers with `skopeo copy`,
// Packyard's registry against Docker's reference registry (Debian's `docker-registry`, its
// filesystem storage) on the same machine, interleaved; then Packyard's memory while one 1 GiB
// layer is uploaded. Results: docs/benchmarks.md; method: bench/registry/README.md.
//
//   node bench/registry/run.ts [--runs 5] [--layer-mib 50] [--big-mib 1024] [--out FILE]
import { execFileSync, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { freePort } from "../../apps/web/test/server-process.ts";
import { startPackyardWithProject } from "../lib/process-packyard.ts";

const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    "layer-mib": { type: "string", default: "50" },
    "big-mib": { type: "string", default: "1024" },
    out: { type: "string", default: "bench/registry/results/latest.json" },
  },
});
const runs = Number(args.runs);
const layerMib = Number(args["layer-mib"]);
const bigMib = Number(args["big-mib"]);
const scratch = mkdtempSync(join(tmpdir(), "packyard-bench-registry-"));
const log = (message: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${message}`);

const sha = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

/** An OCI layout of one image: `layers` gzip layers of `mib` MiB of random bytes each. */
function writeLayout(dir: string, layers: number, mib: number): number {
  mkdirSync(join(dir, "blobs", "sha256"), { recursive: true });
  writeFileSync(join(dir, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
  const put = (bytes: Uint8Array | string) => {
    const hex = sha(bytes);
    writeFileSync(join(dir, "blobs", "sha256", hex), bytes);
    return {
      digest: `sha256:${hex}`,
      size: typeof bytes === "string" ? Buffer.byteLength(bytes) : bytes.byteLength,
    };
  };
  const descriptors = [];
  const diffIds = [];
  let total = 0;
  for (let i = 0; i < layers; i++) {
    // Random bytes barely compress: the gzip layer is as large as its content.
    const raw = randomBytes(mib * 1024 * 1024);
    diffIds.push(`sha256:${sha(raw)}`);
    const layer = put(gzipSync(raw, { level: 1 }));
    total += layer.size;
    descriptors.push({ mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", ...layer });
  }
  const config = put(
    JSON.stringify({ architecture: "amd64", os: "linux", rootfs: { type: "layers", diff_ids: diffIds } }),
  );
  const manifest = JSON.stringify({
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.manifest.v1+json",
    config: { mediaType: "application/vnd.oci.image.config.v1+json", ...config },
    layers: descriptors,
  });
  const top = put(manifest);
  writeFileSync(
    join(dir, "index.json"),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [
        {
          mediaType: "application/vnd.oci.image.manifest.v1+json",
          ...top,
          annotations: { "org.opencontainers.image.ref.name": "bench" },
        },
      ],
    }),
  );
  return total;
}

let homes = 0;

/**
 * skopeo's wall time. Each call has a home of its own: skopeo remembers where it saw a blob
 * (its blob-info cache) and would mount it from the previous run's image instead of uploading.
 */
function skopeo(args: string[]): number {
  const home = join(scratch, `home-${homes++}`);
  mkdirSync(home);
  const started = performance.now();
  execFileSync("skopeo", args, {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, HOME: home, XDG_RUNTIME_DIR: home },
  });
  return performance.now() - started;
}

/** fetch, once more if a kept-alive connection the server had just closed failed it. */
const request = (url: string, init: RequestInit) => fetch(url, init).catch(() => fetch(url, init));

async function startReference(): Promise<{ host: string; stop: () => void }> {
  const port = await freePort();
  const root = join(scratch, "reference-storage");
  const config = join(scratch, "reference.yml");
  writeFileSync(
    config,
    [
      "version: 0.1",
      "log:",
      "  level: error",
      "storage:",
      "  filesystem:",
      `    rootdirectory: ${root}`,
      "  delete:",
      "    enabled: true",
      "http:",
      `  addr: 127.0.0.1:${port}`,
      "",
    ].join("\n"),
  );
  // Its log says every 404 a client's existence check meets, at level error: not shown.
  const child = spawn("docker-registry", ["serve", config], { stdio: "ignore" });
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/v2/`)).ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  return { host: `127.0.0.1:${port}`, stop: () => child.kill() };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
const cell = (xs: number[]) =>
  `${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;

async function main() {
  // A new image per push: skopeo remembers where it saw a blob (its blob-info cache, machine-wide
  // when run as root) and would mount it from the previous run's image instead of uploading it.
  let bytes = 0;
  const reference = await startReference();
  const packyard = await startPackyardWithProject({ slug: "images", name: "Images" });
  const times: Record<string, number[]> = {
    "push reference": [],
    "push packyard": [],
    "pull reference": [],
    "pull packyard": [],
  };
  const targets = [
    { label: "reference", image: (i: number) => `${reference.host}/bench/run-${i}`, creds: [] as string[] },
    {
      label: "packyard",
      image: (i: number) => `${packyard.host}/bench/images/run-${i}`,
      creds: ["--dest-creds", `bench:${packyard.token}`],
    },
  ];
  for (let i = 0; i < runs; i++) {
    const order = i % 2 ? [...targets].reverse() : targets;
    for (const t of order) {
      const layout = join(scratch, `layout-${t.label}-${i}`);
      bytes = writeLayout(layout, 4, layerMib);
      const push = skopeo([
        "copy",
        "--dest-tls-verify=false",
        ...t.creds,
        `oci:${layout}:bench`,
        `docker://${t.image(i)}:1`,
      ]);
      rmSync(layout, { recursive: true, force: true });
      times[`push ${t.label}`]!.push(push);
      const out = join(scratch, `pulled-${t.label}-${i}`);
      const pull = skopeo(["copy", "--src-tls-verify=false", `docker://${t.image(i)}:1`, `oci:${out}:x`]);
      times[`pull ${t.label}`]!.push(pull);
      rmSync(out, { recursive: true, force: true });
      log(`${t.label} #${i + 1}: push ${push.toFixed(0)} ms, pull ${pull.toFixed(0)} ms`);
    }
  }
  const mbps = (ms: number[]) => (bytes / 1024 / 1024 / (median(ms) / 1000)).toFixed(0);

  // Memory while one large layer is uploaded in one PATCH, streamed from disk by curl.
  log(`uploading one ${bigMib} MiB layer to Packyard, sampling its RSS`);
  const big = join(scratch, "big.bin");
  execFileSync("sh", ["-c", `head -c ${bigMib * 1024 * 1024} /dev/urandom > ${big}`]);
  const digest = execFileSync("sha256sum", [big]).toString().split(" ")[0];
  const base = `http://${packyard.host}`;
  const rssBefore = packyard.server.rss();
  const start = await request(`${base}/v2/bench/images/big/blobs/uploads/`, {
    method: "POST",
    headers: { authorization: `Bearer ${packyard.token}` },
  });
  const location = start.headers.get("location")!;
  let peak = rssBefore;
  const sampler = setInterval(() => {
    peak = Math.max(peak, packyard.server.rss());
  }, 50);
  const uploadStarted = performance.now();
  await new Promise<void>((done, fail) => {
    const curl = spawn(
      "curl",
      [
        "-sS",
        "-f",
        "-X",
        "PATCH",
        "-H",
        `Authorization: Bearer ${packyard.token}`,
        "-H",
        "Content-Type: application/octet-stream",
        // -T streams the file (--data-binary would read it all into memory first).
        "-T",
        big,
        `${base}${location}`,
      ],
      { stdio: ["ignore", "ignore", "inherit"] },
    );
    curl.on("exit", (code) => (code === 0 ? done() : fail(new Error(`curl ${code}`))));
  });
  const finish = await request(`${base}${location}?digest=sha256:${digest}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${packyard.token}` },
  });
  const uploadMs = performance.now() - uploadStarted;
  clearInterval(sampler);
  if (finish.status !== 201) throw new Error(`finishing the big upload: ${finish.status}`);
  const rssAfter = packyard.server.rss();

  const mib = (b: number) => (b / 1024 / 1024).toFixed(0);
  const lines = [
    `Run ${new Date().toISOString()}; ${runs} interleaved runs; image ${(bytes / 1024 / 1024).toFixed(0)} MiB in 4 layers; skopeo ${execFileSync("skopeo", ["--version"]).toString().trim()}; docker-registry ${execFileSync("docker-registry", ["--version"]).toString().trim()}`,
    "",
    "| skopeo copy, ms | Packyard | reference registry | Packyard ÷ reference (speed) |",
    "|---|---:|---:|---:|",
    `| push (oci: → registry) | ${cell(times["push packyard"]!)} | ${cell(times["push reference"]!)} | ${(median(times["push reference"]!) / median(times["push packyard"]!)).toFixed(2)} |`,
    `| pull (registry → oci:) | ${cell(times["pull packyard"]!)} | ${cell(times["pull reference"]!)} | ${(median(times["pull reference"]!) / median(times["pull packyard"]!)).toFixed(2)} |`,
    "",
    `Throughput (medians): push ${mbps(times["push packyard"]!)} vs ${mbps(times["push reference"]!)} MiB/s, pull ${mbps(times["pull packyard"]!)} vs ${mbps(times["pull reference"]!)} MiB/s.`,
    `One ${bigMib} MiB layer in one PATCH (curl -T) + PUT: ${uploadMs.toFixed(0)} ms; Packyard RSS ${mib(rssBefore)} MiB before, peak ${mib(peak)} MiB during, ${mib(rssAfter)} MiB after.`,
  ];
  console.log(`\n${lines.join("\n")}`);
  mkdirSync(dirname(args.out!), { recursive: true });
  writeFileSync(
    args.out!,
    JSON.stringify({ times, bytes, bigMib, uploadMs, rssBefore, peak, rssAfter }, null, 2),
  );
  writeFileSync(args.out!.replace(/\.json$/, ".md"), `${lines.join("\n")}\n`);
  reference.stop();
  await packyard.server.stop();
  rmSync(scratch, { recursive: true, force: true });
}

await main();
