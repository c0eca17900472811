#!/bin/sh
# SPDX-License-Identifier: ISC
# Builds tests/ras_watch as a static program: fabtune's RAS client, parser and tracker
# with nothing but libc, for a machine that has none of fabtune's libraries (the GPU
# machine of tests/gpu-ras/run.sh). BUILDDIR holds configure's config.h.
#   ras-static.sh BUILDDIR OUTPUT
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
${CC:-cc} -static -O2 -pthread -I"$1" -I"$src/src/shared" -I"$src/src/daemon/model" \
    -I"$src/src/daemon/sources" -o "$2" "$src/tests/ras_watch.c" \
    "$src/src/daemon/sources/ras_client.c" "$src/src/daemon/sources/ras_parse.c" \
    "$src/src/daemon/sources/ras_json.c" "$src/src/daemon/model/ras_status.c" \
    "$src/src/daemon/model/ras_tracker.c" "$src/src/shared/grow.c" \
    "$src/src/shared/strutil.c" "$src/src/shared/timeutil.c"
