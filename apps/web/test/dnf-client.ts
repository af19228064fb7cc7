// dnf into a throwaway installroot, as ../shared/FORMATS.md describes: nothing of the machine's
// own dnf configuration or rpm database is read or changed.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type RunResult, runCommand } from "./apt-client.ts";
import { makeTempDir } from "./temp-dirs.ts";

export interface DnfRoot {
  root: string;
  /** dnf with the repository at `url` (gpgcheck and repo_gpgcheck on, failures not skipped). */
  dnf(
    url: string,
    args: string[],
    options?: { keyUrl?: string; username?: string; password?: string },
  ): Promise<RunResult>;
  /** dnf using the .repo files under the root's /etc/yum.repos.d. */
  dnfWithRepos(args: string[]): Promise<RunResult>;
}

export function dnfRoot(): DnfRoot {
  const root = makeTempDir("packyard-dnf-");
  mkdirSync(join(root, "etc/yum.repos.d"), { recursive: true });
  const common = [
    "-y",
    `--installroot=${root}`,
    "--releasever=12",
    `--setopt=cachedir=${root}/cache`,
    "--setopt=install_weak_deps=False",
    "--setopt=keepcache=False",
    "--nodocs",
  ];
  return {
    root,
    dnf(url, args, options = {}) {
      const repo = [
        `--setopt=reposdir=${root}/nonexistent`,
        `--repofrompath=r,${url}`,
        "--repo=r",
        "--setopt=r.gpgcheck=1",
        "--setopt=r.repo_gpgcheck=1",
        "--setopt=r.skip_if_unavailable=False",
        `--setopt=r.gpgkey=${options.keyUrl ?? url.replace(/\/rpm(\/[^/]+)?$/, "/gpg.key")}`,
        ...(options.username
          ? [`--setopt=r.username=${options.username}`, `--setopt=r.password=${options.password}`]
          : []),
      ];
      return runCommand(["dnf", ...common, ...repo, ...args], { LC_ALL: "C" }, 120_000);
    },
    dnfWithRepos(args) {
      return runCommand(
        ["dnf", ...common, `--setopt=reposdir=${root}/etc/yum.repos.d`, ...args],
        { LC_ALL: "C" },
        120_000,
      );
    },
  };
}
