#!/bin/sh
# SPDX-License-Identifier: ISC
# The loop owns the daemon's state (issue 42, item 1): a pass gets copies or the memory lent
# to it (pass/pipeline.h's pass_memory) and hands results back, so no mutex guards daemon
# state. The locks left guard what several threads of one module share by design, each
# named here with its reason; any other pthread_mutex under src/daemon fails.
#   responder/responder.c  the responder's sessions, across its own threads
#   sources/ras_client.c   the RAS addresses being queried, one query each at a time
. "${top_srcdir:-.}/tests/lib.sh"
src="${LOOP_SRC:-$top_srcdir/src}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -rln 'pthread_mutex\|pthread_rwlock\|pthread_spin' "$src/daemon" | sed "s|^$src/daemon/||" |
    grep -vx 'responder/responder.c\|sources/ras_client.c' > "$tmp/locks"
if [ -s "$tmp/locks" ]; then
    fail "a lock on daemon state in: $(tr '\n' ' ' < "$tmp/locks")"
else
    pass "no lock on daemon state under src/daemon ($(grep -rc 'pthread_mutex' "$src/daemon" | awk -F: '$2 > 0 { n++ } END { print n + 0 }') files keep their own threads' lock)"
fi
grep -qE 'answers_lock|^static struct fw_answer [a-z_]+\[' "$src/daemon/sources/source_cc.c" &&
    fail "source_cc.c keeps a global answer cache" || pass "the firmware answers are handed in (no global)"
# The rule holds for code yet to come: the manager with a lock again fails it.
if [ -z "${LOOP_SRC:-}" ]; then
    cp -r "$src" "$tmp/copy"
    echo 'static pthread_mutex_t again = PTHREAD_MUTEX_INITIALIZER;' >> "$tmp/copy/daemon/service/manager.c"
    LOOP_SRC="$tmp/copy" sh "$0" > "$tmp/self.out" 2>&1 &&
        fail "a manager.c with a mutex passes" || pass "a manager.c with a mutex fails the rule"
fi
finish
