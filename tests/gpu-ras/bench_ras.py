#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Does fabtune's RAS client slow an NCCL job? Two ranks on one GPU, set up as the project's
capture.py sets them up (NCCL's socket transport over loopback, each rank's RAS on its own
port, 28028 and 28029), run all-reduces of 256 KiB back to back, each rank stamping every
10th; the windows alternate: none queried, then ras_watch querying both RAS ports every
INTERVAL_MS (JSON on 28028, text on 28029). Prints the all-reduce rate of each window.

usage: bench_ras.py OUTDIR RAS_WATCH [WINDOWS [WINDOW_S [INTERVAL_MS]]]   (torch with CUDA)
"""
import os, subprocess, sys, time

PORTS = [28028, 28029]


def agree(dist, torch, flag):
    """Both ranks agree on a flag (the larger wins): they leave a loop at the same iteration."""
    f = torch.tensor([1.0 if flag else 0.0], device="cuda")
    dist.all_reduce(f, op=dist.ReduceOp.MAX)
    return f.item() > 0


def worker(rank, out, total):
    import torch
    import torch.distributed as dist
    torch.cuda.set_device(0)
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29556", rank=rank, world_size=2)
    t = torch.ones(1 << 16, device="cuda")
    for _ in range(50):
        dist.all_reduce(t)
    torch.cuda.synchronize()
    open(os.path.join(out, "ready%d" % rank), "w").write("%.6f\n" % time.time())
    go = os.path.join(out, "go")
    while not agree(dist, torch, os.path.exists(go)):
        time.sleep(0.01)
    start = float(open(go).read())
    stamps = []
    while True:
        for _ in range(10):
            dist.all_reduce(t)
        torch.cuda.synchronize()
        stamps.append(time.time())
        if agree(dist, torch, time.time() >= start + total):
            break
    open(os.path.join(out, "rank%d.stamps" % rank), "w").write("\n".join("%.6f" % s for s in stamps))
    dist.destroy_process_group()


def rate(stamps, a, b):
    inside = [s for s in stamps if a <= s < b]
    return 10.0 * len(inside) / (b - a)


def main(out, watch, windows=6, window_s=8.0, interval_ms=1000):
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ, NCCL_IB_DISABLE="1", NCCL_SOCKET_IFNAME="lo", NCCL_NVLS_ENABLE="0",
               NCCL_P2P_DISABLE="1", NCCL_SHM_DISABLE="1")
    total = windows * window_s
    procs = []
    for r in (0, 1):
        e = dict(env, NCCL_HOSTID="fabtune-bench-host%d" % r, NCCL_RAS_ADDR="127.0.0.1:%d" % PORTS[r])
        log = open(os.path.join(out, "rank%d.log" % r), "w")
        procs.append(subprocess.Popen([sys.executable, __file__, "--worker", str(r), out, str(total)],
                                      env=e, stdout=log, stderr=subprocess.STDOUT))
    for _ in range(240):
        if all(os.path.exists(os.path.join(out, "ready%d" % r)) for r in (0, 1)):
            break
        if any(p.poll() is not None for p in procs):
            print("a rank exited before it was ready")
            return 1
        time.sleep(0.5)
    start = time.time() + 1.0
    open(os.path.join(out, "go"), "w").write("%.6f\n" % start)
    time.sleep(max(0.0, start - time.time()))
    marks = []
    for w in range(windows):
        a = start + w * window_s
        watched = w % 2 == 1
        if watched:
            wl = open(os.path.join(out, "watch%d.txt" % w), "w")
            subprocess.run([watch, "-i", str(interval_ms), "-d", str(int(window_s) - 1),
                            "127.0.0.1:%d" % PORTS[0], "text:127.0.0.1:%d" % PORTS[1]],
                           stdout=wl, stderr=subprocess.STDOUT)
        time.sleep(max(0.0, a + window_s - time.time()))
        marks.append((a, a + window_s, watched))
    for p in procs:
        p.wait(timeout=60)
    for r in (0, 1):
        stamps = [float(x) for x in open(os.path.join(out, "rank%d.stamps" % r)).read().split()]
        on = [rate(stamps, a + 0.5, b - 0.5) for a, b, w in marks if w]
        off = [rate(stamps, a + 0.5, b - 0.5) for a, b, w in marks if not w]
        print("rank %d all-reduces/s, windows in order: %s" % (
            r, " ".join("%s%.0f" % ("Q" if w else "-", rate(stamps, a + 0.5, b - 0.5)) for a, b, w in marks)))
        print("rank %d: not queried mean %.1f/s, queried every %d ms on both ports mean %.1f/s (%+.2f%%)" % (
            r, sum(off) / len(off), interval_ms, sum(on) / len(on),
            100.0 * (sum(on) / len(on) - sum(off) / len(off)) / (sum(off) / len(off))))
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "--worker":
        worker(int(sys.argv[2]), sys.argv[3], float(sys.argv[4]))
    else:
        a = sys.argv[3:]
        sys.exit(main(sys.argv[1], sys.argv[2], int(a[0]) if a else 6,
                      float(a[1]) if len(a) > 1 else 8.0, int(a[2]) if len(a) > 2 else 1000))
