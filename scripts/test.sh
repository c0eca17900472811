#!/bin/sh
# SPDX-License-Identifier: ISC
# Installs what is missing, builds fabtune and runs the whole test suite.
# This is the README's test command; CI calls it with extra options.
#
#   scripts/test.sh [--werror] [--sanitizers] [--fuzz SECONDS] [--distcheck] [--deb]
#                   [--builddir DIR] [--build-only]
#
#   --deb        build the Debian package first (scripts/build-deb.sh, lintian clean) and
#                install that package in the systemd guest (FABTUNE_DEB); without it the
#                guest gets this build's make install tree
#   --distcheck  then make distcheck (its configure gets the same options), running the
#                quick suites in the unpacked tarball, and check that the tarball holds
#                every file git tracks that the build or tests use
#   --build-only build (and the fuzz targets with --fuzz), run nothing: CI builds its
#                second pass's trees this way, niced, while the first pass's tests run;
#                a later call with the same options finds them configured and built
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
builddir=build
configure_args=""
fuzz_seconds=0
distcheck=no
sanitizers=no
deb=no
build_only=no

while [ $# -gt 0 ]; do
    case $1 in
        --werror) configure_args="$configure_args --enable-werror" ;;
        --sanitizers) sanitizers=yes; configure_args="$configure_args --enable-sanitizers" ;;
        --fuzz) fuzz_seconds=$2; shift ;;
        --distcheck) distcheck=yes ;;
        --deb) deb=yes ;;
        --builddir) builddir=$2; shift ;;
        --build-only) build_only=yes ;;
        *) echo "usage: $0 [--werror] [--sanitizers] [--fuzz SECONDS] [--distcheck] [--deb] [--builddir DIR] [--build-only]" >&2
           exit 64 ;;
    esac
    shift
done

# configure in the current directory, unless it was configured from this tree's configure
# with these same options: then its build stays as it is. $niced: a nice(1) prefix.
niced=""
configure_here() {
    if [ -f config.status ] && [ config.status -nt "$top/configure" ] &&
       [ "$(./config.status --config)" = "$*" ]; then
        echo "test.sh: $(pwd) is configured with: $*"
        return 0
    fi
    # shellcheck disable=SC2086
    $niced "$top/configure" "$@"
}

fuzz_targets="tests/fuzz/fuzz_policy tests/fuzz/fuzz_sysfs tests/fuzz/fuzz_dcb tests/fuzz/fuzz_request
    tests/fuzz/fuzz_state tests/fuzz/fuzz_reply tests/fuzz/fuzz_sysctl_conf tests/fuzz/fuzz_netlink
    tests/fuzz/fuzz_pci_config tests/fuzz/fuzz_snapshot_extract tests/fuzz/fuzz_peers tests/fuzz/fuzz_routes
    tests/fuzz/fuzz_module_eeprom tests/fuzz/fuzz_lldp tests/fuzz/fuzz_fec tests/fuzz/fuzz_fw_config
    tests/fuzz/fuzz_ras tests/fuzz/fuzz_proc_nccl tests/fuzz/fuzz_kmsg"

"$top/scripts/deps-debian.sh"
cd "$top"
# One kernel and initramfs cache for every pass and build tree (and distcheck's copy).
export FABTUNE_VM_CACHE="${FABTUNE_VM_CACHE:-$top/.cache/vm}"
if [ "$deb" = yes ] && [ "$build_only" = no ]; then
    # The package builds from a scratch copy of the tree, beside this build (it needs
    # nothing of it); the systemd guest stage of make check installs it.
    mkdir -p "$top/$builddir-deb"
    "$top/scripts/build-deb.sh" "$top/$builddir-deb" > "$top/$builddir-deb/build-deb.out" 2>&1 &
    deb_build=$!
fi
[ -x configure ] && [ configure -nt configure.ac ] && [ Makefile.in -nt Makefile.am ] || autoreconf -fi

mkdir -p "$builddir"
cd "$builddir"
if [ "$sanitizers" = yes ]; then
    # Leaks are errors too; report every UBSan finding with a stack.
    export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:${ASAN_OPTIONS:-}"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
fi
# shellcheck disable=SC2086
configure_here $configure_args
make -j"$(nproc)"
fuzzdir="$top/$builddir-fuzz"
if [ "$fuzz_seconds" -gt 0 ] && [ "$build_only" = yes ]; then
    mkdir -p "$fuzzdir"
    # shellcheck disable=SC2086
    (cd "$fuzzdir" && configure_here --enable-fuzzing --enable-sanitizers CC=clang &&
        make -j"$(nproc)" $fuzz_targets)
fi
[ "$build_only" = no ] || exit 0
if [ "$fuzz_seconds" -gt 0 ]; then
    # The fuzz targets (a clang ASan+UBSan tree of their own) build beside the suite,
    # niced: the suite waits on its daemons and guests much of the time.
    mkdir -p "$fuzzdir"
    # shellcheck disable=SC2086
    (cd "$fuzzdir" && niced="nice -n 10" && configure_here --enable-fuzzing --enable-sanitizers CC=clang &&
        nice -n 10 make -j"$(nproc)" $fuzz_targets) > "$fuzzdir/build.log" 2>&1 &
    fuzz_build=$!
fi
if [ "$deb" = yes ]; then
    if ! wait "$deb_build"; then
        cat "$top/$builddir-deb/build-deb.out"
        echo "test.sh: the Debian package did not build" >&2
        exit 1
    fi
    sed -n '$!p' "$top/$builddir-deb/build-deb.out"
    FABTUNE_DEB=$(tail -1 "$top/$builddir-deb/build-deb.out")
    export FABTUNE_DEB
    echo "package: $FABTUNE_DEB"
fi
# One test more than there are CPUs: a guest stage holds a slot for minutes with one TCG
# thread, and many quick tests wait on daemons and timers (on 2 CPUs, -j3 took the ASan
# pass's make check from 260 s to 195 s).
make -j"$(( $(nproc) + 1 ))" check || { cat test-suite.log; exit 1; }

# CI: no test may be skipped.
if [ "${CI:-}" = true ] && grep -q '^SKIP:' test-suite.log; then
    grep '^SKIP:' test-suite.log
    echo "test.sh: tests were skipped in CI" >&2
    exit 1
fi

if [ "$distcheck" = yes ]; then
    # The whole suite ran above; in the tarball, the quick suites prove it builds, installs
    # and tests out of tree. Its guests would only boot a second time.
    make -j"$(nproc)" distcheck DISTCHECK_CONFIGURE_FLAGS="$configure_args" \
        TESTS="tests/check_policy tests/check_checks tests/check_sources tests/check_cpulist tests/check_report tests/check_qos tests/check_counters tests/check_tuning tests/fabtuned-cli.sh tests/units.sh"
    # ... and that the tarball holds every tracked file of the build and the tests.
    tarball=$(ls -t fabtune-*.tar.gz | head -1)
    (cd "$top" && git ls-files) | grep -v -E '^(\.ci/|\.gitignore$|debian/|m4/\.keep$)' | sort > tracked.lst
    tar -tzf "$tarball" | sed 's|^[^/]*/||' | sort > dist.lst
    missing=$(comm -23 tracked.lst dist.lst)
    if [ -n "$missing" ]; then
        echo "test.sh: tracked files missing from $tarball (EXTRA_DIST):" >&2
        echo "$missing" >&2
        exit 1
    fi
    echo "distcheck: $tarball holds all $(wc -l < tracked.lst) tracked files"
fi

# Every parser's libFuzzer target, each for the given time, from its seed corpus.
run_fuzzer() {
    name=$1 corpus_dir=$2
    corpus=$(mktemp -d)
    cp "$top/tests/fuzz/$corpus_dir"/* "$corpus/"
    # The targets that read real files make their scratch trees on a tmpfs when there is
    # one (several times the runs of a disk; tests/fuzz/fuzz_scratch.h).
    scratch=$(mktemp -d "$(if [ -w /dev/shm ]; then echo /dev/shm; else echo "${TMPDIR:-/tmp}"; fi)/fabtune-$name.XXXXXX")
    if ! TMPDIR=$scratch "$fuzzdir/tests/fuzz/$name" -max_total_time="$fuzz_seconds" -max_len=4096 \
            -artifact_prefix="$fuzzdir/$name-" "$corpus" > "$fuzzdir/$name.log" 2>&1; then
        tail -60 "$fuzzdir/$name.log"
        echo "$name: crash; the input is in $fuzzdir/" >&2
        exit 1
    fi
    echo "$name: $(grep '^Done' "$fuzzdir/$name.log"), no crash"
    rm -rf "$corpus" "$scratch"
}

if [ "$fuzz_seconds" -gt 0 ]; then
    if ! wait "$fuzz_build"; then
        tail -60 "$fuzzdir/build.log"
        echo "test.sh: the fuzz targets did not build" >&2
        exit 1
    fi
    # All at once: each gets its full time, the wall time is one target's.
    run_fuzzer fuzz_policy policy-corpus & p1=$!
    run_fuzzer fuzz_sysfs sysfs-corpus & p2=$!
    run_fuzzer fuzz_dcb dcb-corpus & p3=$!
    run_fuzzer fuzz_request request-corpus & p4=$!
    run_fuzzer fuzz_state state-corpus & p5=$!
    run_fuzzer fuzz_reply reply-corpus & p6=$!
    run_fuzzer fuzz_sysctl_conf sysctl-conf-corpus & p7=$!
    run_fuzzer fuzz_netlink netlink-corpus & p8=$!
    run_fuzzer fuzz_pci_config pci-config-corpus & p9=$!
    run_fuzzer fuzz_snapshot_extract snapshot-extract-corpus & p10=$!
    run_fuzzer fuzz_peers peers-corpus & p11=$!
    run_fuzzer fuzz_routes routes-corpus & p12=$!
    run_fuzzer fuzz_module_eeprom module-corpus & p13=$!
    run_fuzzer fuzz_lldp lldp-corpus & p14=$!
    run_fuzzer fuzz_fec fec-corpus & p15=$!
    run_fuzzer fuzz_fw_config fw-config-corpus & p16=$!
    run_fuzzer fuzz_ras ras-corpus & p17=$!
    run_fuzzer fuzz_proc_nccl proc-nccl-corpus & p18=$!
    run_fuzzer fuzz_kmsg kmsg-corpus & p19=$!
    crashed=0
    wait $p1 || crashed=1
    wait $p2 || crashed=1
    wait $p3 || crashed=1
    wait $p4 || crashed=1
    wait $p5 || crashed=1
    wait $p6 || crashed=1
    wait $p7 || crashed=1
    wait $p8 || crashed=1
    wait $p9 || crashed=1
    wait $p10 || crashed=1
    wait $p11 || crashed=1
    wait $p12 || crashed=1
    wait $p13 || crashed=1
    wait $p14 || crashed=1
    wait $p15 || crashed=1
    wait $p16 || crashed=1
    wait $p17 || crashed=1
    wait $p18 || crashed=1
    wait $p19 || crashed=1
    [ $crashed = 0 ] || exit 1
fi

# One line over every test case of every program (check suites and shell tests).
awk '/^[0-9]+%: Checks: / { n = $3 + 0; f = $5 + $7; p += n - f; x += f }
     /^[0-9]+ passed, [0-9]+ failed/ { p += $1; x += $3 }
     END { printf "%d passed, %d failed\n", p, x }' $(find tests -name '*.log')
