#!/bin/sh
# Crash trials: kill -9 fabtuned at random points of an apply of real per-namespace
# sysctls, restart it (apply again), revert, and assert that every key is back at its
# original. Each trial runs in a fresh network namespace; the host is never touched.
# It runs until at least FABTUNE_CRASH_IN_APPLY (default 50) kills have landed inside the
# tuning transaction itself (after the snapshot, before the last write's read-back), and
# at most FABTUNE_CRASH_MAX_TRIALS (default 600) trials.
. "${top_srcdir:-.}/tests/lib.sh"
fabtuned="$top_builddir/src/daemon/fabtuned"
policy="$top_srcdir/tests/tuning-netns.policy"
want_in_apply=${FABTUNE_CRASH_IN_APPLY:-50}
max_trials=${FABTUNE_CRASH_MAX_TRIALS:-600}

if [ -n "${FABTUNE_TRIAL:-}" ]; then
    # One trial, inside its own namespace. Prints "PHASE RESULT".
    keys=$(awk '/^    net\./ { sub(":", "", $1); print $1 }' "$policy")
    values() { for k in $keys; do printf '%s=%s\n' "$k" "$(tr -s '\t ' '  ' < "/proc/sys/$(echo "$k" | tr . /)")"; done; }
    state=$(mktemp -d)
    values > "$state/originals"
    "$top_builddir/tests/kill_after" "$FABTUNE_DELAY" \
        "$fabtuned" --once --no-probes --apply -c "$policy" --state-dir "$state" > "$state/out" 2>&1
    rc=$?
    # Where the kill landed: no snapshot yet, snapshot but no write, some writes, all.
    values > "$state/killed"
    changed=$(diff "$state/originals" "$state/killed" | grep -c '^>')
    if [ "$rc" != 137 ]; then phase=finished
    elif [ ! -e "$state/sysctl-originals.json" ]; then phase=before-snapshot
    elif [ "$changed" = 0 ]; then phase=snapshot-only
    else phase=mid-writes
    fi
    # Restart: the daemon applies again, then an operator reverts.
    "$fabtuned" --once --no-probes --apply -c "$policy" --state-dir "$state" >/dev/null 2>&1
    "$fabtuned" --revert --state-dir "$state" > "$state/revert.log" 2>&1 || { echo "$phase revert-failed"; exit 0; }
    values > "$state/after"
    if cmp -s "$state/originals" "$state/after"; then echo "$phase restored"
    else echo "$phase NOT-restored: $(diff "$state/originals" "$state/after" | tr '\n' ' ')"; fi
    rm -rf "$state"
    exit 0
fi

# How long one whole run takes here, so that the kills spread over all of it.
span_us=$(unshare -n sh -c "s=\$(mktemp -d); '$top_builddir/tests/kill_after' -1 '$fabtuned' --once --no-probes --apply -c '$policy' --state-dir \$s 2>/dev/null | tail -1; rm -rf \$s")
echo "# one fabtuned --once --apply runs ${span_us} us here; kills spread over 0..${span_us} us"

: > "$_scratch/phases"
win_lo=0 win_hi=$span_us
i=0 in_apply=0
while [ "$in_apply" -lt "$want_in_apply" ] && [ "$i" -lt "$max_trials" ]; do
    # 20 trials spread over the whole run, the rest over the apply window the first ones
    # found: between the latest kill that came before the snapshot and the earliest that
    # came after the run ended.
    if [ "$i" -lt 20 ]; then lo=0 hi=$span_us
    else lo=$(( win_lo * 9 / 10 )) hi=$(( win_hi * 11 / 10 )); fi
    delay=$(awk -v s="$i" -v lo="$lo" -v hi="$hi" 'BEGIN { srand(s * 7919 + 1); printf "%d", lo + rand() * (hi - lo) }')
    out=$(FABTUNE_TRIAL=1 FABTUNE_DELAY="$delay" unshare -n sh "$0")
    set -- $out
    echo "$1" >> "$_scratch/phases"
    case $1 in
        before-snapshot) [ "$delay" -gt "$win_lo" ] && win_lo=$delay ;;
        finished) [ "$delay" -lt "$win_hi" ] && win_hi=$delay ;;
        snapshot-only|mid-writes) in_apply=$((in_apply + 1)) ;;
    esac
    [ "$win_lo" -lt "$win_hi" ] || { win_lo=0; win_hi=$span_us; }
    case $2 in
        restored) pass "trial $i: kill after ${delay} us ($1): every key restored" ;;
        *) fail "trial $i: kill after ${delay} us: $out" ;;
    esac
    i=$((i + 1))
done
echo "# $i trials; where the kills landed: $(sort "$_scratch/phases" | uniq -c | awk '{ printf "%s %s; ", $2, $1 }')"
[ "$in_apply" -ge "$want_in_apply" ] && pass "$in_apply kills landed inside the tuning transaction" ||
    fail "only $in_apply of $i kills landed inside the tuning transaction (wanted $want_in_apply)"
finish
