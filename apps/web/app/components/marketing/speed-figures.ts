// The home page's speed figures: publishing one more package into a 10,000-package repository,
// copied from the newest run of each format in docs/benchmarks.md. speed-figures.test.ts reads
// that file and fails when these drift from it.
import type { SpeedRow } from "./speed-table.tsx";

export interface SpeedRun {
  caption: string;
  /** The commit the run measured, and its day. */
  commit: string;
  date: string;
  samples: number;
  /** What reproduces it: bench/<format>/run-at-commit.sh with the run's arguments. */
  command: string;
  rows: SpeedRow[];
}

export const aptSpeed: SpeedRun = {
  caption: "APT: upload → new InRelease served",
  commit: "55555f7",
  date: "24 November 2026",
  samples: 9,
  command: "bench/apt/run-at-commit.sh 55555f7 -- --sizes 10000 --peers reprepro --runs 9",
  rows: [
    { system: "Packyard", ms: 24.7, range: "22.5–29.5", ours: true },
    { system: "reprepro includedeb", ms: 160, range: "159–163" },
  ],
};

export const yumSpeed: SpeedRun = {
  caption: "YUM: upload → new repomd.xml served (RPM signed on upload)",
  commit: "f3731f4",
  date: "21 November 2026",
  samples: 7,
  command: "bench/yum/run-at-commit.sh f3731f4",
  rows: [
    { system: "Packyard", ms: 52.9, range: "46.0–67.4", ours: true },
    { system: "createrepo_c --update + gpg", ms: 726, range: "711–759" },
    { system: "the same + rpmsign", ms: 817, range: "773–878" },
  ],
};
