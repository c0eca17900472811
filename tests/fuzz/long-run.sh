#!/bin/sh
# SPDX-License-Identifier: ISC
# A long fuzz run, outside CI: one libFuzzer target from its seed corpus until RUNS
# inputs have run (the hardening issue asks 10 million per target), on a private tmpfs
# scratch directory (TMPDIR): the targets that read real files make tens of system calls
# per input and run several times faster there than on a disk.
#   tests/fuzz/long-run.sh FUZZ_BUILDDIR NAME CORPUS RUNS
# e.g. tests/fuzz/long-run.sh /tmp/fuzzb fuzz_state state-corpus 10000000
# FUZZ_BUILDDIR is configured with CC=clang --enable-fuzzing --enable-sanitizers. For more
# cores, start it once per core with a share of the runs (each has its own corpus copy and
# scratch); the runs add up. The new corpus and any crash input stay in the work
# directory it prints.
set -eu
[ $# -eq 4 ] || { echo "usage: $0 FUZZ_BUILDDIR NAME CORPUS RUNS" >&2; exit 64; }
builddir=$1 name=$2 corpus=$3 runs=$4
top=$(cd "$(dirname "$0")/../.." && pwd)
shm=/dev/shm
[ -d "$shm" ] && [ -w "$shm" ] || shm=${TMPDIR:-/tmp}
work=$(mktemp -d "$shm/fabtune-$name.XXXXXX")
mkdir "$work/corpus" "$work/tmp"
cp "$top/tests/fuzz/$corpus"/* "$work/corpus/"
echo "$name: $runs runs, scratch and corpus in $work"
TMPDIR="$work/tmp" "$builddir/tests/fuzz/$name" -runs="$runs" -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$work/" "$work/corpus" > "$work/$name.log" 2>&1 || {
    tail -40 "$work/$name.log"
    echo "$name: stopped; a crash input is in $work/" >&2
    exit 1
}
grep -E '^(Done|stat::number_of_executed_units)' "$work/$name.log"
