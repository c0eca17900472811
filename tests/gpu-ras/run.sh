#!/bin/sh
# SPDX-License-Identifier: ISC
# Issue 44's run on the GPU machine (tests/gpu-ras/README): fabtune's RAS client beside a
# real NCCL job. DIR holds ras_watch (tests/ras-static.sh), capture.py (the project's shared
# reference) and bench_ras.py; OUT gets machine.txt, timeline.txt, capture.log, run3.tar.gz
# (every raw reply ras_watch read, capture.py's own captures and logs), then bench.txt and
# bench.tar.gz (the bench's stamps and logs).
#   run.sh DIR OUT [nobench]
set -u
d=$(cd "$1" && pwd) out=$2 w=/tmp/gpu-ras
rm -rf "$w"
mkdir -p "$w/replies" "$w/cap"
{
    date -u
    uname -r
    nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader
    python3 -c 'import torch; print("torch", torch.__version__, "nccl", torch.cuda.nccl.version())'
    ldd "$d/ras_watch" 2>&1
    echo "commands:"
    echo "  python3 bench_ras.py $w/bench ras_watch 6 6 1000"
    echo "  python3 capture.py $w/cap &"
    echo "  ras_watch -i 2000 -d 400 -o $w/replies -p $w/cap/phase 127.0.0.1:28028 text:127.0.0.1:28029"
} > "$out/machine.txt" 2>&1
cat "$out/machine.txt"
echo normal > "$w/cap/phase"
timeout 300 python3 "$d/capture.py" "$w/cap" > "$out/capture.log" 2>&1 &
cap=$!
"$d/ras_watch" -i 2000 -d 400 -o "$w/replies" -p "$w/cap/phase" 127.0.0.1:28028 \
    text:127.0.0.1:28029 > "$out/timeline.txt" 2>&1 &
watch=$!
wait "$cap"
echo "capture exit $?" >> "$out/capture.log"
sleep 4
kill "$watch" 2>/dev/null
wait "$watch"
tail -5 "$out/timeline.txt"
tar -C "$w" -czf "$out/run3.tar.gz" replies cap
# The bench last: what the timeline needs is in OUT already if the time runs out.
[ "${3:-}" = nobench ] && exit 0
timeout 200 python3 "$d/bench_ras.py" "$w/bench" "$d/ras_watch" 6 6 1000 > "$out/bench.txt" 2>&1
echo "bench exit $?" >> "$out/bench.txt"
cat "$out/bench.txt"
tar -C "$w" -czf "$out/bench.tar.gz" bench
ls -la "$out"
