#!/usr/bin/env bash
# The APT benchmark against a committed tree: see bench/run-at-commit.sh.
#
#   bench/apt/run-at-commit.sh [rev=HEAD] [-- arguments for run.ts]
exec "$(dirname "$0")/../run-at-commit.sh" apt "$@"
