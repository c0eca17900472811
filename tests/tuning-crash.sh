#!/bin/sh
# SPDX-License-Identifier: ISC
# Crash trials: kill -9 fabtuned at random points of an apply of real per-namespace
# sysctls, restart it (apply again), revert, and assert that every key is back at its
# original. Each trial runs in a fresh network namespace; the host is never touched.
# The first 20 kills spread over the whole run; the rest are aimed at the tuning
# transaction itself: their delay counts from the moment the originals snapshot is renamed
# into place (kill_after --after-file), so process start-up jitter, which is far longer
# than the transaction, cannot make them miss. It runs until at least
# FABTUNE_CRASH_IN_APPLY (default 50) kills have landed inside the transaction (after the
# snapshot, before the last write's read-back), and at most FABTUNE_CRASH_MAX_TRIALS
# (default 600) trials.
. "${top_srcdir:-.}/tests/lib.sh"
fabtuned="$top_builddir/src/daemon/fabtuned"
policy="$top_srcdir/tests/tuning-netns.policy"
want_in_apply=${FABTUNE_CRASH_IN_APPLY:-50}
max_trials=${FABTUNE_CRASH_MAX_TRIALS:-600}

if [ -n "${FABTUNE_TRIAL:-}" ]; then
    # One trial, inside its own namespace. Prints "PHASE RESULT".
    # The keys' files, and their values in one awk (a few processes a trial, not a few
    # per key: forks are what a trial costs here).
    files=$(awk '/^    net\./ { sub(":", "", $1); gsub("\\.", "/", $1); print "/proc/sys/" $1 }' "$policy")
    # shellcheck disable=SC2086
    values() { awk '{ gsub(/[\t ]+/, " "); print FILENAME "=" $0 }' $files; }
    state=$(mktemp -d)
    values > "$state/originals"
    anchor=""
    [ -n "${FABTUNE_ANCHORED:-}" ] && anchor="--after-file $state/sysctl-originals.json"
    # shellcheck disable=SC2086
    "$top_builddir/tests/kill_after" $anchor "$FABTUNE_DELAY" \
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
# And from the snapshot to the end of the run: the median of five, since under load one
# run in a few takes a hundred times longer.
apply_us=$(for _ in 1 2 3 4 5; do
    unshare -n sh -c "s=\$(mktemp -d); '$top_builddir/tests/kill_after' --after-file \$s/sysctl-originals.json -1 '$fabtuned' --once --no-probes --apply -c '$policy' --state-dir \$s 2>/dev/null | tail -1; rm -rf \$s"
done | sort -n | sed -n 3p)
echo "# from the originals snapshot to the end of the run: ${apply_us} us (median of 5); aimed kills start over its first two thirds and narrow when they land after the end"

: > "$_scratch/phases"
ahi=$((apply_us * 2 / 3))   # the writes fill about the first half
i=0 in_apply=0
while [ "$in_apply" -lt "$want_in_apply" ] && [ "$i" -lt "$max_trials" ]; do
    if [ "$i" -lt 20 ]; then hi=$span_us anchored=""
    else hi=$ahi anchored=1; fi
    delay=$(awk -v s="$i" -v hi="$hi" 'BEGIN { srand(s * 7919 + 1); printf "%d", rand() * hi }')
    out=$(FABTUNE_TRIAL=1 FABTUNE_DELAY="$delay" FABTUNE_ANCHORED="$anchored" unshare -n sh "$0")
    set -- $out
    echo "$1" >> "$_scratch/phases"
    case $1 in snapshot-only|mid-writes) in_apply=$((in_apply + 1)) ;; esac
    # An aimed kill that came after the end narrows the aim (never below 200 us).
    if [ -n "$anchored" ] && [ "$1" = finished ] && [ "$ahi" -gt 200 ]; then ahi=$((ahi * 9 / 10)); fi
    case $2 in
        restored) pass "trial $i: kill after ${delay} us${anchored:+ past the snapshot} ($1): every key restored" ;;
        *) fail "trial $i: kill after ${delay} us: $out" ;;
    esac
    i=$((i + 1))
done
echo "# $i trials; where the kills landed: $(sort "$_scratch/phases" | uniq -c | awk '{ printf "%s %s; ", $2, $1 }')"
[ "$in_apply" -ge "$want_in_apply" ] && pass "$in_apply kills landed inside the tuning transaction" ||
    fail "only $in_apply of $i kills landed inside the tuning transaction (wanted $want_in_apply)"
finish
