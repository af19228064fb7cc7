#!/usr/bin/env bash
# The YUM benchmark against a committed tree: see bench/run-at-commit.sh.
#
#   bench/yum/run-at-commit.sh [rev=HEAD] [-- arguments for run.ts]
exec "$(dirname "$0")/../run-at-commit.sh" yum "$@"
