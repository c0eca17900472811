#!/bin/sh
# SPDX-License-Identifier: ISC
# Installs every build and test dependency of fabtune on Debian 12. Idempotent.
# This is the one list of packages; the README's two commands (scripts/run-once.sh,
# scripts/test.sh), HACKING's build by hand and CI call this script.
set -eu

PACKAGES="
  build-essential autoconf automake libtool pkg-config
  clang libclang-rt-14-dev
  libibverbs-dev librdmacm-dev rdma-core ibverbs-providers
  libnl-3-dev libnl-route-3-dev
  libsystemd-dev systemd
  libyaml-dev libjson-c-dev libarchive-dev check
  liblldpctl-dev lldpd
  iproute2 util-linux procps kmod jq xxd groff-base strace
  qemu-system-x86 busybox-static cpio xz-utils
  perftest sockperf time
  mstflint
  debhelper dpkg-dev lintian
  prometheus prometheus-node-exporter curl
  slurmctld slurmd slurm-client munge
"

missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
        || missing="$missing $p"
done

if [ -z "$missing" ]; then
    echo "deps: all $(echo $PACKAGES | wc -w) packages present"
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "deps: missing:$missing; run as root" >&2
    exit 1
fi

echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
