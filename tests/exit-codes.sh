#!/bin/sh
# SPDX-License-Identifier: ISC
# The exit-code tables of the man pages against the programs: each row of fabtunectl(1)'s
# health table (one per format) and of fabtuned(8)'s EXIT STATUS table (--once) is read
# from the page's source, and the programs are made to give each verdict: a daemon and
# --once on the 8-rail fixture (READY), the same with a drifted sysctl (DEGRADED), on the
# fixture with a rail down (NOT_READY); no daemon for health's UNKNOWN (a daemon answers
# only after its first check; --once always has findings, so it has no way to UNKNOWN).
. "${top_srcdir:-.}/tests/lib.sh"
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
tmp=$(mktemp -d /tmp/ft.XXXXXX)
dpid=
trap 'kill $dpid 2>/dev/null; wait $dpid 2>/dev/null; rm -rf "$tmp"' EXIT
fx=$(shared_fixtures)

# table PAGE FIRST_CELL: the rows of the tbl table whose header row starts with FIRST_CELL,
# header included, tab-separated, with the roff escapes of "\-" undone.
table() {
    awk -v first="$2" '
        /^\.TS/ { in_ts = 1; rows = ""; take = 0; next }
        /^\.TE/ { if (take) printf "%s", rows; in_ts = 0; take = 0; next }
        in_ts && /\t/ { if ($1 == first) take = 1; rows = rows $0 "\n" }' "$1" | sed 's/\\-/-/g'
}
table "$top_srcdir/man/fabtunectl.1" format > "$tmp/ctl-table"
table "$top_srcdir/man/fabtuned.8" mode > "$tmp/once-table"
[ "$(head -n 1 "$tmp/ctl-table" | cut -f 2-5)" = "$(printf 'READY\tDEGRADED\tNOT_READY\tUNKNOWN')" ] \
    && pass "fabtunectl(1): the health table's columns are the four verdicts" || fail "fabtunectl(1): $(head -n 1 "$tmp/ctl-table")"
[ "$(grep -c . "$tmp/ctl-table")" -eq 5 ] && pass "fabtunectl(1): a row for each of the 4 formats" \
    || fail "fabtunectl(1)'s table: $(cat "$tmp/ctl-table")"
[ "$(head -n 1 "$tmp/once-table" | cut -f 2-5)" = "$(printf 'READY\tDEGRADED\tNOT_READY\tUNKNOWN')" ] \
    && grep -q '^--once	' "$tmp/once-table" && pass "fabtuned(8): the --once row under the four verdicts" \
    || fail "fabtuned(8)'s table: $(cat "$tmp/once-table")"
# want TABLE ROW VERDICT: the code the page gives.
want() { awk -F '\t' -v row="$2" -v v="$3" 'NR == 1 { for (i = 2; i <= NF; i++) col[$i] = i; next }
                                            $1 == row { print $col[v] }' "$1"; }

unlimited_proc "$tmp/proc"
mkdir -p "$tmp/proc/sys/net/core"
echo 128 > "$tmp/proc/sys/net/core/somaxconn"
# READY and NOT_READY judge the rails alone; DEGRADED adds a sysctl that differs (a warning).
printf 'version: 1\ntuning: {mode: off}\nprobes: {enabled: false}\nchecks: {interval: 1h}\n' > "$tmp/rails.yaml"
printf 'version: 1\ntuning: {mode: verify, sysctl: {net.core.somaxconn: 4096}}\nprobes: {enabled: false}\nchecks: {interval: 1h}\n' > "$tmp/drift.yaml"
sock="$tmp/run/fabtuned.sock"
# case VERDICT TREE POLICY
set -- READY mlx5_8rail rails DEGRADED mlx5_8rail drift NOT_READY mlx5_8rail_rail_down rails
while [ $# -ge 3 ]; do
    verdict=$1 tree=$2 policy=$3; shift 3
    run "$fabtuned" --once --no-probes -c "$tmp/$policy.yaml" --sysfs-root "$fx/$tree/sys" \
        --procfs-root "$tmp/proc" --state-dir "$tmp/once-state"
    tail -n 1 "$LAST_OUT" | grep -q "^verdict: $verdict" || fail "--once on $tree: $(tail -n 1 "$LAST_OUT")"
    w=$(want "$tmp/once-table" --once "$verdict")
    [ "$LAST_RC" = "$w" ] && pass "fabtuned --once: $verdict exits $w, as fabtuned(8) says" \
        || fail "fabtuned --once: $verdict exits $LAST_RC, fabtuned(8) says $w"

    rm -rf "$tmp/run"
    "$fabtuned" -c "$tmp/$policy.yaml" --sysfs-root "$fx/$tree/sys" --procfs-root "$tmp/proc" \
        --state-dir "$tmp/state-$tree-$policy" --runtime-dir "$tmp/run" --log-target stderr 2>> "$tmp/log" & dpid=$!
    for _ in $(seq 300); do
        "$ctl" -s "$sock" --json health 2>/dev/null | grep -q "\"verdict\":\"$verdict\"" && break; sleep 0.05
    done
    for format in npd nagios nhc slurm; do
        run "$ctl" -s "$sock" health --format "$format"
        w=$(want "$tmp/ctl-table" "$format" "$verdict")
        [ "$LAST_RC" = "$w" ] && pass "health --format $format: $verdict exits $w, as fabtunectl(1) says" \
            || fail "health --format $format: $verdict exits $LAST_RC, fabtunectl(1) says $w: $(cat "$LAST_OUT")"
    done
    kill "$dpid"; wait "$dpid" 2>/dev/null; dpid=
done

# UNKNOWN with no daemon: each format within its budget (npd's 100 ms, else --timeout).
for format in npd nagios nhc slurm; do
    run "$ctl" -s "$sock" health --format "$format" --timeout 0.2
    w=$(want "$tmp/ctl-table" "$format" UNKNOWN)
    [ "$LAST_RC" = "$w" ] && pass "health --format $format, no daemon: exits $w" \
        || fail "health --format $format, no daemon: exit $LAST_RC, fabtunectl(1) says $w"
done
finish
