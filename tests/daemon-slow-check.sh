#!/bin/sh
# SPDX-License-Identifier: ISC
# A slow check pass never delays a reply: the pipeline runs in a worker thread and the loop
# answers from the last finished report. FABTUNE_TEST_SLOW_CHECK_MS makes each pass in the
# worker sleep first (it stands for a DCB netlink timeout of 2 s per rail). Judged by
# ratios: every reply during a pass takes a small fraction of that pass, however loaded
# the machine. The worker thread runs at a lower priority than the loop. Also: passes asked for during one fold into one more, and "fabtunectl
# reload" prints the verdict of the first pass under the new policy.
. "${top_srcdir:-.}/tests/lib.sh"
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
raw="$top_builddir/tests/ctl_raw"
tmp=$(mktemp -d /tmp/fabtune-slow.XXXXXX)
slow_ms=3000
fx=$(shared_fixtures)
cat > "$tmp/policy.yaml" <<EOP
version: 1
rails: {expect_count: 1}
checks: {interval: 1h}
tuning: {mode: off}
probes: {enabled: false}
EOP
unlimited_proc "$tmp/proc"
sock="$tmp/run/fabtuned.sock"
FABTUNE_TEST_SLOW_CHECK_MS=$slow_ms "$fabtuned" -c "$tmp/policy.yaml" --sysfs-root "$fx/soft_roce/sys" \
    --procfs-root "$tmp/proc" --state-dir "$tmp/state" --runtime-dir "$tmp/run" \
    --log-target stderr 2> "$tmp/log" & dpid=$!
trap 'kill "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 200); do [ -S "$sock" ] && break; sleep 0.05; done
ms() { echo $(( $(date +%s%N) / 1000000 )); }
st() { "$ctl" -s "$sock" --json status | jq -r "$1"; }
# The first pass runs before the loop (READY=1 follows it), not in the worker: no delay.
[ "$(st .checks_done)" = 1 ] && [ "$(st .checking)" = false ] &&
    pass "the first check is done before the socket answers" || fail "first check: $(st .checks_done)"

# One pass in the worker, asked for over the socket (the reply does not wait for it).
t0=$(ms)
echo '{"v":1,"cmd":"reload"}' | "$raw" "$sock" > "$tmp/r"
t_reply=$(( $(ms) - t0 ))
expect_grep '"first_check":2' "$tmp/r"
# The worker runs 10 nice levels below the loop (field 19 of /proc/PID/task/TID/stat is
# the thread's nice; a command name may hold spaces, so count from the last ')'). Read
# while the pass sleeps its first seconds, as soon as the worker thread is there. Both
# relative to the nice the test runs at (CI or a person may run make check under nice).
base=$(nice); worker=$(( base + 10 > 19 ? 19 : base + 10 ))
nices() { for f in /proc/"$dpid"/task/*/stat; do sed 's/.*) //' "$f" 2>/dev/null | awk '{ print $17 }'; done | sort -n | tr '\n' ' '; }
thread_nices=""
for _ in $(seq 40); do
    thread_nices=$(nices)
    case " $thread_nices" in *" $worker "*) break ;; esac
    sleep 0.05
done
case " $thread_nices" in
    *" $base "*"$worker "*) pass "the loop at nice $base, the pass's worker at nice $worker ($thread_nices)" ;;
    *) fail "thread nice values during the pass: '$thread_nices' (want the loop $base, the worker $worker)" ;;
esac
# Health, five times, while the pass is going (status says so before and after each).
max=0 during=0
for _ in 1 2 3 4 5; do
    [ "$(st .checking)" = true ] || break
    t=$(ms); "$ctl" -s "$sock" health > /dev/null; rc=$?; t=$(( $(ms) - t ))
    [ "$(st .checking)" = true ] || break
    [ $rc -eq 0 ] && during=$((during + 1))
    [ $t -gt $max ] && max=$t
done
[ $during -ge 1 ] && pass "$during health replies (exit 0) while the pass was going" ||
    fail "no health reply fell inside the pass"
for _ in $(seq 400); do [ "$(st .checks_done)" = 2 ] && break; sleep 0.05; done
t_pass=$(( $(ms) - t0 ))
[ "$(st .checks_done)" = 2 ] && pass "the pass finished ($t_pass ms, of which $slow_ms slept)" ||
    fail "checks_done $(st .checks_done) after $t_pass ms"
echo "    reload reply $t_reply ms; slowest health $max ms; pass $t_pass ms"
[ $((max * 4)) -lt "$t_pass" ] && [ $((t_reply * 4)) -lt "$t_pass" ] &&
    pass "the replies took under a quarter of the pass ($t_reply and $max ms of $t_pass)" ||
    fail "a reply waited for the pass ($t_reply and $max ms of $t_pass)"

# Three passes asked for while one is going: the one going, then one more for all of them.
kill -HUP "$dpid"
for _ in $(seq 100); do [ "$(st .checking)" = true ] && break; sleep 0.02; done
kill -HUP "$dpid"; kill -HUP "$dpid"
for _ in $(seq 600); do [ "$(st .checks_done)" = 4 ] && [ "$(st .checking)" = false ] && break; sleep 0.05; done
sleep 0.5
[ "$(st .checks_done)" = 4 ] && [ "$(st .checking)" = false ] &&
    pass "3 asked for during a pass: that pass and 1 more (checks_done 4)" ||
    fail "checks_done $(st .checks_done), checking $(st .checking)"

# fabtunectl reload waits for the first pass under the new policy and prints its verdict.
sed 's/expect_count: 1/expect_count: 2/' "$tmp/policy.yaml" > "$tmp/p2" && mv "$tmp/p2" "$tmp/policy.yaml"
t0=$(ms)
expect_rc 0 "$ctl" -s "$sock" reload
t=$(( $(ms) - t0 ))
expect_match '^policy reloaded from .*policy.yaml; verdict NOT_READY$' "$LAST_OUT"
[ $t -ge $slow_ms ] && pass "fabtunectl reload waited for that pass ($t ms)" || fail "it answered in $t ms"
# With a --timeout shorter than the pass, it says the pass is still running.
cp "$tmp/policy.yaml" "$tmp/p2" && sed -i 's/expect_count: 2/expect_count: 1/' "$tmp/p2" && mv "$tmp/p2" "$tmp/policy.yaml"
expect_rc 0 "$ctl" -s "$sock" reload --timeout 0.5
expect_match 'its first check is still running after 0.5 s$' "$LAST_OUT"
kill -0 "$dpid" && pass "the daemon is running" || fail "the daemon died"
! grep -q "ERROR\|AddressSanitizer\|runtime error" "$tmp/log" && pass "nothing went wrong in its log" ||
    { fail "its log:"; cat "$tmp/log"; }
finish
