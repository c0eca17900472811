#!/bin/sh
# SPDX-License-Identifier: ISC
# The NCCL jobs in a running daemon (issue 44): fabtuned's jobs watch, its RAS client and
# tracker, and the job.* checks in its passes, against real sockets and real processes.
# What is NOT NCCL here: the RAS port is tests/ras-serve.py, which serves NCCL's replies
# kept as fixtures (tests/fixtures/ras/derived: NCCL 2.28.9's JSON layout for the
# mlx5_8rail_gpus node's Slurm job 4242, rank 3 on GPU 3 one operation behind while the
# counts rise, then frozen) over TCP; so this tests the daemon's client, tracker, checks and
# outputs, not NCCL (tests/gpu-ras does that on a GPU).
# 1. The fixture node (its procfs: job 4242's processes, NCCL_RAS_ADDR pointed at the
#    served port): job.ras names the straggler with its GPU and rail at the second reply
#    behind, then the hang once the counts freeze; the daemon sent only read commands;
#    the alert is in the journal; a RAS that goes away is said once, the daemon answers on.
# 2. This host's /proc: a real process that maps a file named libnccl.so.2, started with a
#    wrong NCCL_IB_HCA and NCCL_RAS_ADDR on a port that accepts and never answers:
#    job.nccl_env names the job and the missing HCA; the query is bounded (the daemon
#    answers meanwhile), no job.ras finding comes of it.
. "${top_srcdir:-.}/tests/lib.sh"
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
command -v python3 > /dev/null || { echo "SKIP: no python3 (the RAS port)"; exit 77; }
command -v jq > /dev/null || { echo "SKIP: no jq"; exit 77; }
daemon_scratch jobs mlx5_8rail_gpus
cp -a "$(shared_fixtures)/mlx5_8rail_gpus/proc/." "$tmp/proc/"
fixtures="$top_srcdir/tests/fixtures/ras/derived"
srv=""
trap 'kill $dpid $srv $job 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
serve() {   # serve PORTFILE LOG ARGS...: a RAS port, its pid in $!
    rm -f "$1"
    python3 "$top_srcdir/tests/ras-serve.py" "$@" &
    for _ in $(seq 100); do [ -s "$1" ] && break; sleep 0.05; done
}
serve "$tmp/port" "$tmp/ras.log" "$fixtures/gpu3-lag0.reply" "$fixtures/gpu3-lag1.reply" \
    "$fixtures/gpu3-lag2.reply"
srv=$!
port=$(cat "$tmp/port")
for e in "$tmp"/proc/[0-9]*/environ; do
    sed -i "s/127\.0\.0\.1:28028/127.0.0.1:$port/" "$e"
done
cat > "$tmp/policy.yaml" <<EOP
version: 1
checks: {interval: 1h}
tuning: {mode: off}
probes: {enabled: false}
jobs: {ras: {interval: 1s, timeout: 2s}}
EOP
job_ras() {
    "$ctl" -s "$sock" --json checks |
        jq -r '.[] | select(.check == "job.ras") | "\(.severity) \(.subject): \(.message)"'
}
# until_ras PATTERN: the job.ras findings into $tmp/ras until one matches (20 s at most).
until_ras() {
    for _ in $(seq 40); do
        job_ras > "$tmp/ras"
        grep -q "$1" "$tmp/ras" && return 0
        sleep 0.5
    done
    return 1
}

fabtuned_start
until_ras 'straggler' && pass "job.ras names the straggler" || fail "no straggler: $(cat "$tmp/ras")"
[ "$(wc -l < "$tmp/ras")" = 1 ] && pass "one job.ras finding (rank 11 lags on 10.1.0.6: not this node's)" ||
    fail "job.ras findings: $(cat "$tmp/ras")"
expect_match '^warning job 4242 rank 3: Slurm job 4242: rank 3 (pid 3003, GPU 3 at 0000:5d:00\.0, rail mlx5_3/1 (PXB)) is a straggler: 1 operation behind in 2 replies while the counts move' "$tmp/ras"
expect_match 'its rail mlx5_3/1 was clean in that window' "$tmp/ras"
expect_match '1 more rank of the job lags or failed on other nodes' "$tmp/ras"
# The served port repeats its last reply: the counts freeze, the straggler is hung.
until_ras 'is hung' && pass "frozen counts: job.ras says hung" || fail "no hang: $(cat "$tmp/ras")"
expect_match 'rank 3 (pid 3003, GPU 3 at 0000:5d:00\.0, rail mlx5_3/1 (PXB)) is hung: 1 operation behind, the counts frozen' "$tmp/ras"
# fabtunectl jobs, its JSON, and the metrics: the rank, its GPU, its rail, its state, and
# that its rail was clean (the cause is elsewhere).
"$ctl" -s "$sock" --json jobs > "$tmp/jobs.json"
jq -r '.[] | select(.id == "4242") | .ranks[] | "\(.rank) \(.gpu) \(.gpu_pci_address) \(.rail) \(.state) \(.cause)"' \
    "$tmp/jobs.json" > "$tmp/ranks"
[ "$(cat "$tmp/ranks")" = "3 3 0000:5d:00.0 mlx5_3/1 hung elsewhere" ] &&
    pass "jobs --json: rank 3, GPU 3, rail mlx5_3/1, hung, its rail not the cause" || fail "jobs --json ranks: $(cat "$tmp/ranks")"
[ "$(jq -r '.[] | select(.id == "4242") | "\(.ras.nccl_version) \(.ras.format) \(.ranks_failing_elsewhere) \(.processes)"' "$tmp/jobs.json")" = "2.28.9 json 1 8" ] &&
    pass "jobs --json: NCCL 2.28.9 in JSON, 1 rank failing elsewhere, 8 processes" ||
    fail "jobs --json: $(jq -c '.[] | select(.id == "4242")' "$tmp/jobs.json")"
"$ctl" -s "$sock" jobs > "$tmp/jobs.txt"
expect_match '^Slurm job 4242: 8 processes here; RAS 127\.0\.0\.1:[0-9]*: NCCL 2\.28\.9, [0-9]* replies (json)$' "$tmp/jobs.txt"
expect_match '^  3      3    0000:5d:00\.0   mlx5_3/1     hung       1       not this node.s fabric (its rail was clean)$' "$tmp/jobs.txt"
expect_match '^  1 rank of the job lags or failed on other nodes' "$tmp/jobs.txt"
"$ctl" -s "$sock" metrics > "$tmp/metrics"
expect_match '^fabtune_job_rank_state{job_id="4242",rank="3",rail="mlx5_3/1",state="hung",cause="elsewhere"} 1$' "$tmp/metrics"
expect_match '^fabtune_job_ranks_failing{job_id="4242"} 1$' "$tmp/metrics"
expect_match '^fabtune_job_ras_up{job_id="4242"} 1$' "$tmp/metrics"
expect_match '^fabtune_jobs 2$' "$tmp/metrics"
[ "$(grep -c '^fabtune_job_rank_state' "$tmp/metrics")" = 1 ] && pass "one rank series: rank 11 is another node's" ||
    fail "$(grep '^fabtune_job_rank_state' "$tmp/metrics")"
if command -v promtool > /dev/null; then
    promtool check metrics < "$tmp/metrics" > "$tmp/promtool" 2>&1 && [ ! -s "$tmp/promtool" ] &&
        pass "promtool check metrics: clean" || fail "promtool: $(cat "$tmp/promtool")"
fi
grep 'raised job.ras' "$tmp/log" > "$tmp/alert"
expect_match 'FABTUNE_SUBJECT=job 4242 rank 3 .*FABTUNE_ACTUAL=straggler' "$tmp/alert"
# Only RAS's read commands, ever.
sort -u "$tmp/ras.log" > "$tmp/sent"
[ "$(cat "$tmp/sent")" = "CLIENT PROTOCOL 2|TIMEOUT 5|SET FORMAT json|STATUS|" ] &&
    pass "the daemon sent only CLIENT PROTOCOL, TIMEOUT, SET FORMAT json and STATUS ($(wc -l < "$tmp/ras.log") queries)" ||
    fail "sent: $(cat "$tmp/sent")"
# The RAS goes away: said once, the verdict stays, the daemon answers on.
kill "$srv"; wait "$srv" 2>/dev/null; srv=""
for _ in $(seq 40); do grep -q 'The RAS of Slurm job 4242 does not answer' "$tmp/log" && break; sleep 0.5; done
sleep 3    # three more rounds
[ "$(grep -c 'The RAS of Slurm job 4242 does not answer' "$tmp/log")" = 1 ] &&
    pass "a RAS gone is said once" || fail "$(grep -c 'RAS of Slurm job 4242 does not answer' "$tmp/log") lines"
expect_rc_in "0 1" "$ctl" -s "$sock" health    # answers (the job findings make it DEGRADED)
job_ras > "$tmp/ras"
expect_match 'is hung' "$tmp/ras"
fabtuned_stop

# 2. A real process on this host's /proc.
mkdir -p "$tmp/lib"
head -c 65536 /dev/zero > "$tmp/lib/libnccl.so.2"
serve "$tmp/port2" "$tmp/silent.log" --silent
srv=$!
silent=$(cat "$tmp/port2")
NCCL_IB_HCA=mlx5_0:1,mlx5_99:1 NCCL_RAS_ADDR="127.0.0.1:$silent" NCCL_DEBUG=WARN \
    setsid python3 -c 'import mmap, sys, time
f = open(sys.argv[1], "rb")
m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
time.sleep(120)' "$tmp/lib/libnccl.so.2" &
job=$!
for _ in $(seq 100); do grep -q libnccl "/proc/$job/maps" 2>/dev/null && break; sleep 0.05; done
rm -f "$sock"
sed 's/timeout: 2s/timeout: 10s/' "$tmp/policy.yaml" > "$tmp/policy2.yaml"
"$fabtuned" -c "$tmp/policy2.yaml" --sysfs-root "$root" --procfs-root /proc \
    --state-dir "$tmp/state2" --runtime-dir "$tmp/run" --log-target stderr 2> "$tmp/log2" &
dpid=$!
for _ in $(seq 200); do [ -S "$sock" ] && break; sleep 0.05; done
seen=""
for _ in $(seq 40); do
    "$ctl" -s "$sock" --json checks 2>/dev/null |
        jq -r --arg s "job $job" '.[] | select(.subject == $s) | "\(.check) \(.severity) \(.message)"' > "$tmp/env"
    grep -q '^job.nccl_env' "$tmp/env" && { seen=1; break; }
    sleep 0.5
done
[ -n "$seen" ] && pass "a process mapping libnccl.so.2 is a job (session $job)" || fail "job $job not seen"
expect_match "^job.nccl_env warning session $job (python3): NCCL_IB_HCA names mlx5_99:1, which is no rail of this node" "$tmp/env"
# The silent RAS: asked, bounded (10 s), the daemon answering meanwhile in a fraction of it.
for _ in $(seq 60); do grep -q "The RAS of session $job (python3) does not answer" "$tmp/log2" && break; sleep 0.5; done
expect_match "The RAS of session $job (python3) does not answer: .*127\.0\.0\.1:$silent" "$tmp/log2"
expect_match 'STATUS' "$tmp/silent.log"
t0=$(date +%s.%N)
expect_rc_in "0 1" "$ctl" -s "$sock" health    # answers (the job findings make it DEGRADED)
awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { exit !(b - a < 5) }' &&
    pass "health answered in under half the query's bound while it hangs" || fail "health took $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }') s"
grep -q '^job.ras' "$tmp/env" && fail "a job.ras finding without a RAS reply" || pass "no job.ras finding without a reply"
kill "$job"; job=""
fabtuned_stop
finish
