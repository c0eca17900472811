#!/bin/sh
# SPDX-License-Identifier: ISC
# A long-running job ordered after fabric readiness: records what fabtune said when it
# started, then stays up (so that its MainPID shows whether anything restarted it).
[ -f /var/cache/fabtune-vm/path ] && PATH=$(cat /var/cache/fabtune-vm/path):$PATH
echo "$(fabtunectl health 2>&1) at uptime $(cut -d' ' -f1 /proc/uptime)" > "/run/fabtune-vm-${1:-consumer}"
exec sleep infinity
