# SPDX-License-Identifier: ISC
# What the three guest stages share (tests/guest-rxe, tests/guest-two-node,
# tests/guest-systemd): tests/lib.sh, the skip rule, the tool check and the qemu boot.
# Sourced by each stage's run.sh, in make check's environment (top_srcdir, top_builddir).
#
# Environment, one set for every stage:
#   FABTUNE_VM_CACHE    the kernel and initramfs cache (default: .cache/vm in the source
#                       tree, or ~/.cache/fabtune/vm when that is read-only)
#   FABTUNE_VM_TIMEOUT  seconds for a stage's guest run (default: the stage's own, 900, or
#                       1500 for the systemd guest); the older FABTUNE_VM2_TIMEOUT (two-node) and FABTUNE_SVM_TIMEOUT
#                       (systemd) still set their own stage's, before it
#   FABTUNE_VM_BENCH=1  also run the stage's benchmark, where it has one (bench/ sets it);
#                       the older FABTUNE_VM2_BENCH still sets the two-node stage's
#   FABTUNE_SKIP_VM=1   skip the guest stages in a quick local run; refused when CI=true
. "${top_srcdir:-.}/tests/lib.sh"

# Exits 77 (skipped) when FABTUNE_SKIP_VM=1, or 1 under CI, which may skip nothing.
#   guest_skip_rule "the Soft-RoCE guest stage"
guest_skip_rule() {
    [ "${FABTUNE_SKIP_VM:-0}" = 1 ] || return 0
    if [ "${CI:-}" = true ]; then
        fail "FABTUNE_SKIP_VM=1 is not allowed in CI"; finish; exit 1
    fi
    echo "SKIP: $1 (FABTUNE_SKIP_VM=1)"
    exit 77
}

# Fails the stage unless qemu and the initramfs builders' tools are here.
#   guest_need_tools "the Soft-RoCE guest"
guest_need_tools() {
    for tool in qemu-system-x86_64 busybox cpio modprobe depmod; do
        command -v "$tool" >/dev/null || [ -x "/bin/$tool" ] || [ -x "/sbin/$tool" ] || {
            fail "cannot run $1: $tool is missing (run scripts/deps-debian.sh)"
            finish; exit 1; }
    done
}

# Boots one guest under TCG and waits for it: qemu's exit status goes to RCFILE (124: the
# TIMEOUT ran out), its serial console to CONSOLE, each line stamped with the host seconds
# since qemu started. ARGS: the guest's own qemu arguments (memory, CPUs, kernel, devices).
# GUEST_CONSOLE_STRIP=1 also strips terminal escapes (systemd's status lines).
#   guest_qemu TIMEOUT RCFILE CONSOLE ARGS...
guest_qemu() {
    g_timeout=$1 g_rcfile=$2 g_console=$3
    shift 3
    { timeout "$g_timeout" qemu-system-x86_64 -accel tcg,thread=multi -cpu max -machine pc \
        -display none -monitor none -serial stdio -no-reboot -nic none "$@" \
        < /dev/null 2>&1; echo $? > "$g_rcfile"; } |
        if [ "${GUEST_CONSOLE_STRIP:-0}" = 1 ]; then
            perl -MTime::HiRes=time -ne 'BEGIN { $| = 1; $t0 = time } s/\r//g; s/\e\[[0-9;]*[A-Za-z]|\eM//g;
                printf "[%7.2f] %s", time - $t0, $_'
        else
            perl -MTime::HiRes=time -ne 'BEGIN { $| = 1; $t0 = time } s/\r//g; printf "[%7.2f] %s", time - $t0, $_'
        fi > "$g_console"
}

# The host seconds at which the guest's /init started, from a stamped CONSOLE (empty when
# it never did).
#   guest_boot_seconds CONSOLE
guest_boot_seconds() {
    sed -n 's/^\[ *\([0-9.]*\)\] @@FABTUNE-VM init.*/\1/p' "$1" | head -1
}

# One pass or fail per id of $EXPECTED, from the guest's RESULTS ("PASS ID SECONDS" or
# "FAIL ID SECONDS"), each named "LABEL: ID"; an id that never reported fails, with WHY
# after "did not report". Then RESULTS' BENCH lines, as "bench: ...".
#   guest_report_results RESULTS LABEL [WHY]
guest_report_results() {
    g_results=$1 g_label=$2 g_why=${3:-}
    for id in $EXPECTED; do
        # shellcheck disable=SC2046
        set -- $(grep -m1 -E "^(PASS|FAIL) $id " "$g_results")
        case ${1:-} in
            PASS) pass "$g_label: $id (${3}s)" ;;
            FAIL) fail "$g_label: $id (${3}s)" ;;
            *) fail "$g_label: $id did not report$g_why" ;;
        esac
    done
    grep '^BENCH ' "$g_results" | sed 's/^BENCH /bench: /'
}
