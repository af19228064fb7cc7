// Scale mode end to end: three Packyard processes on one PostgreSQL database and one S3 bucket
// (s3rver), behind a round-robin proxy written here, as behind a load balancer.
// 1. 100 .deb and .rpm uploads spread over the three servers, 8 at a time, while apt-get update
//    and dnf makecache loop through the proxy with signatures checked: every upload ends in both
//    indexes, and no client run fails.
// 2. A burst of 30 more, and one server killed with SIGKILL in its middle: the two others finish
//    its work (the queued publish checks), and the indexes list exactly the uploads that were
//    committed — every one answered 2xx, and none of the rest except those cut off on the killed
//    server after their commit.
// 3. Nothing of a blob or an index under any server's DATA_DIR.
// PostgreSQL only (the CI's second lane); needs s3rver, apt-get, gpgv, dnf and rpmbuild.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { gunzipSync } from "node:zlib";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AptRoot, aptRoot } from "../test/apt-client.ts";
import { type DnfRoot, dnfRoot } from "../test/dnf-client.ts";
import { createPostgresDatabase, databaseKind } from "../test/harness.ts";
import { RoundRobinProxy } from "../test/round-robin-proxy.ts";
import { loadS3rver, startS3rver, type TestS3 } from "../test/s3rver.ts";
import { PROCESS_TEST_SECRET, type ServerProcess, startServerProcess } from "../test/server-process.ts";
import { makeTempDir, removeTempDirs } from "../test/temp-dirs.ts";

const onPostgres = databaseKind === "postgres";
const s3rverModule = onPostgres ? await loadS3rver() : undefined;
const hasTools = onPostgres && requireTools(["apt-get", "gpgv", "dnf", "rpmbuild"]);
const enabled = onPostgres && Boolean(s3rverModule) && hasTools;

const USERNAME = "fleet-owner";
const SLUG = "fleet";
const FIRST_WAVE = 100;
const BURST = 30;

/** Builds `count` small noarch rpms in one rpmbuild run (subpackages of one spec). */
function buildRpms(count: number): Map<string, Buffer> {
  const dir = makeTempDir("packyard-fleet-rpms-");
  const names = Array.from({ length: count }, (_, i) => `fleet-rpm-${String(i + 1).padStart(3, "0")}`);
  const spec = [
    "Name: fleet",
    "Version: 1.0",
    "Release: 1",
    "Summary: Packyard scale-mode test packages",
    "License: MIT",
    "BuildArch: noarch",
    "AutoReq: no",
    "%description",
    "Scale-mode test packages.",
    ...names.flatMap((n) => [
      `%package -n ${n}`,
      `Summary: ${n}`,
      `%description -n ${n}`,
      `${n} for Packyard's scale-mode test.`,
      `%files -n ${n}`,
      `/usr/share/fleet/${n}`,
    ]),
    "%install",
    "mkdir -p %{buildroot}/usr/share/fleet",
    ...names.map((n) => `echo ${n} > %{buildroot}/usr/share/fleet/${n}`),
  ].join("\n");
  mkdirSync(join(dir, "SPECS"), { recursive: true });
  writeFileSync(join(dir, "SPECS/fleet.spec"), `${spec}\n`);
  execFileSync("rpmbuild", ["--define", `_topdir ${dir}`, "--quiet", "-bb", join(dir, "SPECS/fleet.spec")], {
    stdio: "pipe",
  });
  return new Map(
    names.map((n) => [
      `${n}-1.0-1.noarch.rpm`,
      readFileSync(join(dir, "RPMS/noarch", `${n}-1.0-1.noarch.rpm`)),
    ]),
  );
}

function buildDebs(count: number): Map<string, Buffer> {
  const debs = new Map<string, Buffer>();
  for (let i = 1; i <= count; i++) {
    const name = `fleet-deb-${String(i).padStart(3, "0")}`;
    const control = `Package: ${name}\nVersion: 1.0.0\nArchitecture: all\nMaintainer: Packyard Tests <tests@example.com>\nDescription: ${name} for Packyard's scale-mode test\n`;
    debs.set(`${name}_1.0.0_all.deb`, Buffer.from(buildTestDeb({ control })));
  }
  return debs;
}

/** Runs `work` over `items`, `width` at a time. */
async function inParallel<T>(items: T[], width: number, work: (item: T, index: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const index = next++;
        await work(items[index]!, index);
      }
    }),
  );
}

/** The package name an uploaded file should appear under in its index. */
const packageName = (file: string) =>
  file.replace(/_1\.0\.0_all\.deb$/, "").replace(/-1\.0-1\.noarch\.rpm$/, "");

let s3: TestS3;
let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
let proxy: RoundRobinProxy;
let proxyUrl: string;
let servers: ServerProcess[] = [];
let token: string;
let apt: AptRoot;
let dnf: DnfRoot;

async function upload(file: string, bytes: Buffer, version: string): Promise<number | string> {
  try {
    const res = await fetch(`${proxyUrl}/api/v1/projects/${SLUG}/releases/${version}/files/${file}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/octet-stream" },
      body: new Uint8Array(bytes),
    });
    const body = await res.text();
    if (res.status === 502) return "connection lost";
    // Anything else than a 201 is kept with its answer, for the assertion's message.
    return res.status === 201 ? 201 : `${res.status} ${body.slice(0, 300)}`;
  } catch {
    return "connection lost";
  }
}

/** Every release file the database holds for the project: what was committed. */
async function committedFiles(): Promise<Set<string>> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ filename: string }>(
      `select f.filename from release_file f join release r on r.id = f.release_id
       join project p on p.id = r.project_id where p.slug = $1`,
      [SLUG],
    );
    return new Set(rows.map((r) => r.filename));
  } finally {
    await client.end();
  }
}

/** Package names in the served APT and YUM indexes (fetched through the proxy). */
async function indexedPackages(): Promise<{ deb: Set<string>; rpm: Set<string> }> {
  const base = `${proxyUrl}/dl/${USERNAME}/${SLUG}`;
  const packages = await (await fetch(`${base}/deb/dists/stable/main/binary-all/Packages`)).text();
  const deb = new Set([...packages.matchAll(/^Package: (\S+)$/gm)].map((m) => m[1]!));
  const repomd = await (await fetch(`${base}/rpm/repodata/repomd.xml`)).text();
  const primaryHref = /<data type="primary">[\s\S]*?href="([^"]+)"/.exec(repomd)?.[1];
  const primary = gunzipSync(Buffer.from(await (await fetch(`${base}/rpm/${primaryHref}`)).arrayBuffer()));
  const rpm = new Set([...primary.toString("utf8").matchAll(/<name>([^<]+)<\/name>/g)].map((m) => m[1]!));
  return { deb, rpm };
}

/** apt-get update / dnf makecache through the proxy until `done`; every failed run is kept. */
async function clientLoop(done: () => boolean) {
  const failures: string[] = [];
  let aptRuns = 0;
  let dnfRuns = 0;
  const aptLoop = (async () => {
    while (!done()) {
      const r = await apt.run("apt-get", "update");
      aptRuns++;
      const out = `${r.stdout}${r.stderr}`;
      if (r.status !== 0 || /^(W|E):/m.test(out)) failures.push(`apt-get update: ${out}`);
    }
  })();
  const dnfLoop = (async () => {
    while (!done()) {
      const r = await dnf.dnf(`${proxyUrl}/dl/${USERNAME}/${SLUG}/rpm`, ["makecache", "--refresh"]);
      dnfRuns++;
      if (r.status !== 0) failures.push(`dnf makecache: ${r.stdout}${r.stderr}`);
    }
  })();
  await Promise.all([aptLoop, dnfLoop]);
  return { failures, aptRuns, dnfRuns };
}

/** Every file under a directory, relative to it. */
const filesUnder = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => relative(dir, join(d.parentPath, d.name)));

describe.skipIf(!enabled)("scale mode: three servers, PostgreSQL, S3, a round-robin proxy", () => {
  const debs = enabled ? buildDebs(FIRST_WAVE / 2 + BURST / 2) : new Map<string, Buffer>();
  const rpms = enabled ? buildRpms(FIRST_WAVE / 2 + BURST / 2) : new Map<string, Buffer>();

  beforeAll(async () => {
    s3 = await startS3rver(s3rverModule!);
    await s3.keepTemporaryDirectories("fleet/");
    database = await createPostgresDatabase();
    proxy = new RoundRobinProxy();
    proxyUrl = await proxy.listen();
    const env = {
      ...s3.env,
      S3_PREFIX: "fleet/",
      DATABASE_URL: database.url,
      BASE_URL: proxyUrl,
      LOG_LEVEL: "error",
    };
    // Started together: they take turns at the migrations.
    servers = await Promise.all([0, 1, 2].map(() => startServerProcess(env)));
    proxy.backends = servers.map((s) => s.url);

    const password = "a long test password";
    execFileSync(
      process.execPath,
      [
        "server/cli.ts",
        "users",
        "create",
        "--email",
        `${USERNAME}@example.com`,
        "--username",
        USERNAME,
        "--password",
        password,
      ],
      {
        cwd: join(import.meta.dirname, ".."),
        env: {
          ...process.env,
          ...env,
          SECRET: PROCESS_TEST_SECRET,
          DATA_DIR: servers[0]!.dataDir,
          LOG_LEVEL: "silent",
        },
      },
    );
    const signIn = await fetch(`${proxyUrl}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: proxyUrl },
      body: JSON.stringify({ email: `${USERNAME}@example.com`, password }),
    });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const key = await fetch(`${proxyUrl}/api/v1/keys`, {
      method: "POST",
      headers: { cookie, origin: proxyUrl, "content-type": "application/json" },
      body: JSON.stringify({ name: "fleet", access: "publish", projects: "*", expiresInDays: null }),
    });
    expect(key.status).toBe(201);
    token = ((await key.json()) as { key: { key: string } }).key.key;
    const project = await fetch(`${proxyUrl}/api/v1/projects`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ slug: SLUG, name: "Fleet" }),
    });
    expect(project.status).toBe(201);

    apt = aptRoot();
    const keyring = join(apt.root, "etc/apt/keyrings/fleet.gpg");
    writeFileSync(
      keyring,
      Buffer.from(await (await fetch(`${proxyUrl}/dl/${USERNAME}/${SLUG}/keyring.gpg`)).arrayBuffer()),
    );
    writeFileSync(
      join(apt.root, "etc/apt/sources.list"),
      `deb [signed-by=${keyring}] ${proxyUrl}/dl/${USERNAME}/${SLUG}/deb stable main\n`,
    );
    dnf = dnfRoot();
  }, 240_000);

  afterAll(async () => {
    for (const server of servers) await server.stop();
    await proxy?.close();
    await database?.drop();
    await s3?.stop();
    // The apt root and dnf installroot (and the gpg-agent dnf started with its home in there).
    removeTempDirs();
  });

  it("takes 100 uploads spread over three servers while apt-get and dnf loop, with zero client errors", async () => {
    const files = [...[...debs].slice(0, FIRST_WAVE / 2), ...[...rpms].slice(0, FIRST_WAVE / 2)].sort(
      ([a], [b]) => a.slice(-12).localeCompare(b.slice(-12)) || a.localeCompare(b),
    );
    // One of each first, so both repositories exist before the clients start.
    const first = [files.find(([f]) => f.endsWith(".deb"))!, files.find(([f]) => f.endsWith(".rpm"))!];
    for (const [file, bytes] of first) expect(await upload(file, bytes, "1.0.0")).toBe(201);
    const rest = files.filter((f) => !first.includes(f));

    let uploading = true;
    const clients = clientLoop(() => !uploading);
    const statuses: Record<string, number | string> = {};
    const started = performance.now();
    await inParallel(rest, 8, async ([file, bytes], i) => {
      statuses[file] = await upload(file, bytes, `1.0.${i % 5}`);
    });
    const seconds = (performance.now() - started) / 1000;
    uploading = false;
    const { failures, aptRuns, dnfRuns } = await clients;

    expect(Object.values(statuses).filter((s) => s !== 201)).toEqual([]);
    expect(failures).toEqual([]);
    expect(aptRuns).toBeGreaterThan(0);
    expect(dnfRuns).toBeGreaterThan(0);
    console.info(
      `scale mode: ${rest.length} uploads in ${seconds.toFixed(1)} s over 3 servers; ${aptRuns} apt-get updates and ${dnfRuns} dnf makecaches meanwhile, 0 failed`,
    );

    // Every upload is in both indexes, as the real clients see them.
    const names = files.map(([f]) => packageName(f));
    const indexed = await indexedPackages();
    expect([...indexed.deb, ...indexed.rpm].sort()).toEqual([...names].sort());
    await apt.update();
    const aptNames = await apt.run("apt-cache", "pkgnames", "fleet-deb-");
    expect(aptNames.stdout.trim().split("\n").sort()).toEqual(
      names.filter((n) => n.startsWith("fleet-deb-")).sort(),
    );
    const dnfNames = await dnf.dnf(`${proxyUrl}/dl/${USERNAME}/${SLUG}/rpm`, [
      "repoquery",
      "--refresh",
      "--qf",
      "%{name}",
      "fleet-rpm-*",
    ]);
    expect(dnfNames.status).toBe(0);
    expect(
      dnfNames.stdout
        .trim()
        .split("\n")
        .filter((l) => l.startsWith("fleet-rpm-"))
        .sort(),
    ).toEqual(names.filter((n) => n.startsWith("fleet-rpm-")).sort());
  }, 600_000);

  it("loses nothing when a server is killed with SIGKILL mid-burst: the others finish its work", async () => {
    const burst = [...[...debs].slice(FIRST_WAVE / 2), ...[...rpms].slice(FIRST_WAVE / 2)];
    const statuses = new Map<string, number | string>();
    const victim = servers[1]!;
    let answered = 0;
    await inParallel(burst, 8, async ([file, bytes], i) => {
      statuses.set(file, await upload(file, bytes, `2.0.${i % 3}`));
      answered++;
      if (answered === 8) {
        // As a crashed machine: no shutdown, no goodbye; the load balancer stops sending to it.
        victim.child.kill("SIGKILL");
        proxy.backends = servers.filter((s) => s !== victim).map((s) => s.url);
      }
    });
    const ok = burst.map(([f]) => f).filter((f) => statuses.get(f) === 201);
    const lost = burst.map(([f]) => f).filter((f) => statuses.get(f) === "connection lost");
    // Nothing else: no 4xx or 5xx from a live server.
    const others = burst
      .map(([f]) => `${f}: ${statuses.get(f)}`)
      .filter((_, i) => {
        const s = statuses.get(burst[i]![0]);
        return s !== 201 && s !== "connection lost";
      });
    if (others.length > 0) {
      // What the servers logged (errors only) says why: kept in the failure's output.
      for (const [n, server] of servers.entries())
        console.error(
          `server ${n} (${server === victim ? "killed" : "survivor"}):\n${server.output().slice(-4000)}`,
        );
    }
    expect(others).toEqual([]);
    expect(ok.length).toBeGreaterThan(burst.length / 2);

    // The survivors publish what the killed server committed but may not have published.
    const committed = await committedFiles();
    const deadline = Date.now() + 120_000;
    let indexed = await indexedPackages();
    const inIndex = () => new Set([...indexed.deb, ...indexed.rpm]);
    const expected = new Set([...committed].map(packageName));
    while ([...expected].some((n) => !inIndex().has(n)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      indexed = await indexedPackages();
    }
    expect([...inIndex()].sort()).toEqual([...expected].sort());
    // Every upload answered 2xx is there; of the rest, only those committed before the server died.
    for (const file of ok) expect(committed.has(file), file).toBe(true);
    const committedButCut = lost.filter((f) => committed.has(f));
    for (const file of burst.map(([f]) => f)) {
      if (!ok.includes(file) && !committedButCut.includes(file))
        expect(inIndex().has(packageName(file)), file).toBe(false);
    }
    console.info(
      `kill -9 mid-burst: ${ok.length} answered 201, ${lost.length} cut off (${committedButCut.length} of them committed, and indexed by the survivors)`,
    );

    // The real clients agree, through the two servers left.
    await apt.update();
    const dnfRun = await dnf.dnf(`${proxyUrl}/dl/${USERNAME}/${SLUG}/rpm`, ["makecache", "--refresh"]);
    expect(dnfRun.status).toBe(0);

    // Nothing of a blob or an index under any server's data directory, the killed one's included.
    for (const server of servers) {
      expect(filesUnder(server.dataDir).filter((f) => !/^outbox\/[^/]+\.eml$/.test(f))).toEqual([]);
    }
  }, 600_000);
});
