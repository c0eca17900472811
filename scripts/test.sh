#!/bin/sh
# Installs what is missing, builds fabtune and runs the whole test suite.
# This is the README's test command; CI calls it with extra options.
#
#   scripts/test.sh [--werror] [--sanitizers] [--fuzz SECONDS] [--distcheck] [--builddir DIR]
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
builddir=build
configure_args=""
fuzz_seconds=0
distcheck=no
sanitizers=no

while [ $# -gt 0 ]; do
    case $1 in
        --werror) configure_args="$configure_args --enable-werror" ;;
        --sanitizers) sanitizers=yes; configure_args="$configure_args --enable-sanitizers" ;;
        --fuzz) fuzz_seconds=$2; shift ;;
        --distcheck) distcheck=yes ;;
        --builddir) builddir=$2; shift ;;
        *) echo "usage: $0 [--werror] [--sanitizers] [--fuzz SECONDS] [--distcheck] [--builddir DIR]" >&2
           exit 64 ;;
    esac
    shift
done

"$top/scripts/deps-debian.sh"
cd "$top"
[ -x configure ] && [ configure -nt configure.ac ] && [ Makefile.in -nt Makefile.am ] || autoreconf -fi

mkdir -p "$builddir"
cd "$builddir"
if [ "$sanitizers" = yes ]; then
    # Leaks are errors too; report every UBSan finding with a stack.
    export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:${ASAN_OPTIONS:-}"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
fi
# shellcheck disable=SC2086
"$top/configure" $configure_args
make -j"$(nproc)"
make -j"$(nproc)" check || { cat test-suite.log; exit 1; }

if [ "$distcheck" = yes ]; then
    make -j"$(nproc)" distcheck
fi

# Every parser's libFuzzer target, each for the given time, from its seed corpus.
run_fuzzer() {
    name=$1 corpus_dir=$2
    corpus=$(mktemp -d)
    cp "$top/tests/fuzz/$corpus_dir"/* "$corpus/"
    if ! "$fuzzdir/tests/$name" -max_total_time="$fuzz_seconds" -max_len=4096 \
            -artifact_prefix="$fuzzdir/$name-" "$corpus" > "$fuzzdir/$name.log" 2>&1; then
        tail -60 "$fuzzdir/$name.log"
        echo "$name: crash; the input is in $fuzzdir/" >&2
        exit 1
    fi
    echo "$name: $(grep '^Done' "$fuzzdir/$name.log"), no crash"
    rm -rf "$corpus"
}

if [ "$fuzz_seconds" -gt 0 ]; then
    fuzzdir="$top/$builddir-fuzz"
    mkdir -p "$fuzzdir"
    (cd "$fuzzdir" && CC=clang "$top/configure" --enable-fuzzing --enable-sanitizers >/dev/null &&
        make -j"$(nproc)" tests/fuzz_policy tests/fuzz_sysfs tests/fuzz_dcb)
    run_fuzzer fuzz_policy policy-corpus
    run_fuzzer fuzz_sysfs sysfs-corpus
    run_fuzzer fuzz_dcb dcb-corpus
fi

# One line over every test case of every program (check suites and shell tests).
awk '/^[0-9]+%: Checks: / { n = $3 + 0; f = $5 + $7; p += n - f; x += f }
     /^[0-9]+ passed, [0-9]+ failed/ { p += $1; x += $3 }
     END { printf "%d passed, %d failed\n", p, x }' $(find tests -name '*.log')
