#!/bin/sh
# SPDX-License-Identifier: ISC
# A long-running job ordered after fabric readiness: records what fabtune said when it
# started, then stays up (so that its MainPID shows whether anything restarted it). Under
# TCG the daemon can be slow to answer right after READY (its first probe run): health's
# 90 ms then says "not answering", so it is asked again, a bounded number of times.
[ -f /var/cache/fabtune-vm/path ] && PATH=$(cat /var/cache/fabtune-vm/path):$PATH
for _ in 1 2 3 4 5 6 7 8 9 10; do
    said=$(fabtunectl health 2>&1)
    case $said in *"not answering"*) sleep 1 ;; *) break ;; esac
done
echo "$said at uptime $(cut -d' ' -f1 /proc/uptime)" > "/run/fabtune-vm-${1:-consumer}"
exec sleep infinity
