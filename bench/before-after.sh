#!/usr/bin/env bash
# One interleaved before/after run: two committed trees (a `git archive` of each, node_modules
# linked from this checkout, each built on its own) run their own bench/ in turn — for each
# benchmark before, then after, round after round — so the shared machine's load falls on both
# alike. Each tree runs its own benchmark code, so each starts the server the way its own
# production start command did (START_NODE_FLAGS exists only after decision 071). Logs and raw
# results go to --out (default /tmp/packyard-before-after), never into git.
#
#   bench/before-after.sh <before-rev> [after-rev=HEAD] [--rounds 1] [--only serve,start,apt]
#                         [--apt-sizes 10000,50000] [--out DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
before="${1:?usage: bench/before-after.sh <before-rev> [after-rev] [options]}"
shift
after="HEAD"
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then after="$1"; shift; fi
rounds=1 only="serve,start,apt" apt_sizes="10000,50000" out="/tmp/packyard-before-after"
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --apt-sizes) apt_sizes="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
export PATH="$here/node_modules/.bin:$PATH"
mkdir -p "$out"

# A runnable tree of rev under $out/tree-<label>: its sources, this checkout's node_modules, its build.
prepare() {
  local label="$1" rev="$2" tree="$out/tree-$1"
  rm -rf "$tree"
  mkdir -p "$tree/node_modules/@packyard"
  git -C "$here" archive "$rev" | tar -x -C "$tree"
  for entry in "$here"/node_modules/* "$here"/node_modules/.bin; do
    [ "$(basename "$entry")" = "@packyard" ] || ln -s "$entry" "$tree/node_modules/$(basename "$entry")"
  done
  for pkg in "$here"/node_modules/@packyard/*; do
    ln -s "$(readlink "$pkg")" "$tree/node_modules/@packyard/$(basename "$pkg")"
  done
  (cd "$tree/apps/web" && react-router build >"$out/build-$label.log" 2>&1)
  git -C "$here" rev-parse --short "$rev" >"$tree/.commit"
  echo "$label = $(cat "$tree/.commit") in $tree" >&2
}

# One benchmark in one tree; its report (Markdown) to $out/<bench>-<label>-<round>.md.
run() {
  local bench="$1" label="$2" round="$3" tree="$out/tree-$2"
  local log="$out/$bench-$label-$round"
  echo "$(date -u +%T) $bench $label (round $round)" >&2
  (
    cd "$tree"
    case "$bench" in
      serve) node bench/serve/run.ts ;;
      start) node bench/start/run.ts --commit "$(cat .commit)" --dir "$out/start-$label" --out "$log.json" ;;
      apt) node bench/apt/run.ts --sizes "$apt_sizes" --peers reprepro --big-mib 0 --runs 9 \
        --no-profile --commit "$(cat .commit)" --dir "$out/apt-$label" --seed-cache "$out/apt-seed-$label" --out "$log.json" ;;
      *) echo "unknown benchmark $bench" >&2; exit 2 ;;
    esac
  ) >"$log.md" 2>"$log.err"
}

prepare before "$before"
prepare after "$after"
for round in $(seq 1 "$rounds"); do
  for bench in ${only//,/ }; do
    run "$bench" before "$round"
    run "$bench" after "$round"
  done
done
echo "done: $out" >&2
