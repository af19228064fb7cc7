#!/usr/bin/env bash
# Runs a benchmark (bench/<name>/run.ts) against a committed tree instead of the working tree
# (useful while the working tree is being edited). Read-only for the repository: `git archive`
# of <rev> into a scratch directory, this checkout's bench/ copied over it, node_modules linked
# from this checkout (with @packyard/* pointing into the exported tree) and the web build copied.
#
#   bench/run-at-commit.sh <apt|yum> [rev=HEAD] [-- arguments for run.ts]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
name="${1:?usage: bench/run-at-commit.sh <apt|yum> [rev] [-- options]}"
shift
[ -f "$here/bench/$name/run.ts" ] || { echo "no benchmark bench/$name/run.ts" >&2; exit 1; }
rev="HEAD"
if [ $# -gt 0 ] && [ "$1" != "--" ]; then rev="$1"; shift; fi
[ "${1:-}" = "--" ] && shift
tree="${PACKYARD_BENCH_TREE:-/tmp/packyard-bench-tree-$name}"
rm -rf "$tree"
mkdir -p "$tree"
git -C "$here" archive "$rev" | tar -x -C "$tree"
rm -rf "$tree/bench"
cp -r "$here/bench" "$tree/bench"
mkdir -p "$tree/node_modules/@packyard"
for entry in "$here"/node_modules/* "$here"/node_modules/.bin; do
  entry_name="$(basename "$entry")"
  [ "$entry_name" = "@packyard" ] && continue
  ln -s "$entry" "$tree/node_modules/$entry_name"
done
for pkg in "$here"/node_modules/@packyard/*; do
  target="$(readlink "$pkg")" # ../../packages/formats, ../../apps/web, …
  ln -s "$target" "$tree/node_modules/@packyard/$(basename "$pkg")"
done
if [ ! -d "$here/apps/web/build" ]; then
  echo "apps/web/build is missing: run 'npm run build' in $here first" >&2
  exit 1
fi
cp -r "$here/apps/web/build" "$tree/apps/web/build"
commit="$(git -C "$here" rev-parse --short "$rev")"
echo "benchmarking $name at $commit from $tree" >&2
cd "$tree"
export PATH="$here/node_modules/.bin:$PATH"
# Results go to this checkout's bench/<name>/results unless --out is given.
exec node "bench/$name/run.ts" --commit "$commit" --out "$here/bench/$name/results/latest.json" "$@"
