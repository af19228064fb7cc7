// A private apt root as ../shared/FORMATS.md describes it: apt-get and dpkg work inside it and
// nothing of the machine's own apt configuration or state is read or changed.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "./temp-dirs.ts";

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface AptRoot {
  root: string;
  env: Record<string, string>;
  /** Runs asynchronously: the server under test may live in this very process. */
  run(...args: string[]): Promise<RunResult>;
  /** apt-get update; throws with the output when it exits non-zero or prints W:/E: lines. */
  update(): Promise<string>;
  install(...packages: string[]): Promise<string>;
}

export function runCommand(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(args[0]!, args.slice(1), {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

export function aptRoot(sourcesList = ""): AptRoot {
  const root = makeTempDir("packyard-apt-");
  for (const dir of [
    "etc/apt/apt.conf.d",
    "etc/apt/preferences.d",
    "etc/apt/sources.list.d",
    "etc/apt/trusted.gpg.d",
    "etc/apt/auth.conf.d",
    "etc/apt/keyrings",
    "var/lib/apt/lists/partial",
    "var/cache/apt/archives/partial",
    "var/log/apt",
    "var/lib/dpkg/info",
    "var/lib/dpkg/updates",
    "var/lib/dpkg/triggers",
  ]) {
    mkdirSync(join(root, dir), { recursive: true });
  }
  writeFileSync(join(root, "var/lib/dpkg/status"), "");
  writeFileSync(join(root, "etc/apt/sources.list"), sourcesList);
  writeFileSync(
    join(root, "apt.conf"),
    `Dir::Etc "${root}/etc/apt"; Dir::Etc::parts "${root}/etc/apt/apt.conf.d"; Dir::Etc::TrustedParts "${root}/etc/apt/trusted.gpg.d";
Dir::State "${root}/var/lib/apt"; Dir::State::status "${root}/var/lib/dpkg/status"; Dir::Cache "${root}/var/cache/apt"; Dir::Log "${root}/var/log/apt";
APT::Architecture "amd64"; APT::Architectures { "amd64"; }; APT::Sandbox::User "root";
Acquire::Languages "none"; Acquire::Retries "0";
DPkg::Options { "--root=${root}"; "--admindir=${root}/var/lib/dpkg"; "--log=${root}/var/log/dpkg.log"; "--force-script-chrootless"; };
`,
  );
  const env = { APT_CONFIG: join(root, "apt.conf"), LC_ALL: "C", DEBIAN_FRONTEND: "noninteractive" };
  const run = (...args: string[]) => runCommand(args, env);
  const checked = async (...args: string[]) => {
    const result = await run(...args);
    const output = `${result.stdout}${result.stderr}`;
    const problems = output.split("\n").filter((line) => /^(W|E):/.test(line));
    if (result.status !== 0 || problems.length > 0) {
      throw new Error(`${args.join(" ")} failed (exit ${result.status}):\n${output}`);
    }
    return output;
  };
  return {
    root,
    env,
    run,
    update: () => checked("apt-get", "update"),
    install: (...packages) => checked("apt-get", "install", "-y", "--no-install-recommends", ...packages),
  };
}

/**
 * A machine set up for `{baseUrl}/dl/{owner}/{project}/deb` as setup.deb.sh leaves it: the
 * repository's keyring, the source line naming that owner, and with a key the auth.conf.d entry
 * for the repository's path. Tests of old names (a renamed user, a transferred project) give the
 * old owner, so every request apt makes starts from the old URL.
 */
export async function aptMachineFor(
  server: { url: string; port: number },
  owner: string,
  project: string,
  token?: string,
): Promise<AptRoot> {
  const apt = aptRoot();
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const res = await fetch(`${server.url}/dl/${owner}/${project}/keyring.gpg`, { headers });
  if (res.status !== 200) throw new Error(`keyring.gpg of ${owner}/${project}: ${res.status}`);
  const keyring = join(apt.root, `${project}.gpg`);
  writeFileSync(keyring, Buffer.from(await res.arrayBuffer()));
  writeFileSync(
    join(apt.root, "etc/apt/sources.list"),
    `deb [signed-by=${keyring}] ${server.url}/dl/${owner}/${project}/deb stable main\n`,
  );
  if (token) {
    writeFileSync(
      join(apt.root, "etc/apt/auth.conf.d/packyard.conf"),
      `machine http://127.0.0.1:${server.port}/dl/${owner}/${project}/deb login token password ${token}\n`,
      { mode: 0o600 },
    );
  }
  return apt;
}
