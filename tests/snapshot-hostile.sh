#!/bin/sh
# SPDX-License-Identifier: ISC
# Hostile snapshot tarballs, built here, against fabtuned --once --snapshot's unpacking
# (sources/snapshot_extract.c): the entry and size limits name themselves (exit 66 with the
# reason) before a file is written, a gzip bomb under a name that leaves the top is judged
# by its header's size before a byte of it is inflated, links that lead out of the tarball
# lead nowhere, the private directory goes on every way out (success, refusal, a signal, a
# crash), and control bytes and invalid UTF-8 in a snapshot's files reach no output raw.
. "${top_srcdir:-.}/tests/lib.sh"

fabtuned="$top_builddir/src/daemon/fabtuned"
tmp=$(mktemp -d)
# fabtuned unpacks under $TMPDIR: a tmpfs where there is one (thousands of files), where the
# test sees what it leaves.
scr=$(mktemp -d "$(if [ -w /dev/shm ]; then echo /dev/shm; else echo "$tmp"; fi)/fabtune-hostile.XXXXXX")
trap 'rm -rf "$tmp" "$scr"' EXIT
# left: nothing of fabtuned's left under $scr after $1.
left() {
    if [ -z "$(ls -A "$scr")" ]; then pass "$1: no unpacked directory left"
    else fail "$1: left $(ls -A "$scr")"; rm -rf "${scr:?}"/*; fi
}

# NAMES... as a gzip'd tarball of empty files, headers written by hand: tarfile takes
# seconds for 200001 entries on a loaded machine. $1: the tarball; the names on stdin.
empty_files() {
    python3 -c '
import gzip, sys
def header(name):
    h = bytearray(512)
    h[0:len(name)] = name.encode()
    for at, field in ((100, b"0000644\0"), (108, b"0000000\0"), (116, b"0000000\0"),
                      (124, b"00000000000\0"), (136, b"00000000000\0"), (156, b"0"),
                      (257, b"ustar\x0000"), (148, b" " * 8)):
        h[at:at + len(field)] = field
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h)
names = sys.stdin.read().split()
with open(sys.argv[1], "wb") as f:
    f.write(gzip.compress(b"".join(map(header, names)) + b"\0" * 1024, 1))' "$1"
}

# 1. 200001 entries, the last one past the limit: refused by the pass that only reads the
# headers, before a file is written (200000 empty files take seconds to write and remove).
seq 0 200000 | sed 's|^|sys/d/f|' | empty_files "$tmp/many.tar.gz"
expect_rc 66 env TMPDIR="$scr" "$fabtuned" --once --no-probes --snapshot "$tmp/many.tar.gz"
expect_grep "cannot read the snapshot $tmp/many.tar.gz: more than 200000 entries" "$LAST_ERR"
left "more than 200000 entries"

# 2. A 256 MiB entry of zeros named sys/../bomb, gzip members of 1 MiB each (about 256 KiB
# compressed). Refused by its declared size, in far less CPU than inflating it takes.
python3 - "$tmp/bomb.tar.gz" <<'PY'
import gzip, sys, tarfile
size = 256 << 20
entry = tarfile.TarInfo("sys/../bomb")
entry.size = size
mib = gzip.compress(b"\0" * (1 << 20), 9)
with open(sys.argv[1], "wb") as f:
    f.write(gzip.compress(entry.tobuf(format=tarfile.GNU_FORMAT)))
    for _ in range(size >> 20):
        f.write(mib)
    f.write(gzip.compress(b"\0" * 1024))
PY
# The CPU seconds of a command and its children (a difference: python3 may itself be a
# wrapper whose children count too).
cpu() { python3 -c 'import resource, subprocess, sys
def used():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
before = used()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print("%.3f" % (used() - before))' "$@"; }
# The cost of judging the bomb is fabtuned's CPU beyond what it spends refusing a tarball of
# one empty file (its start: under ASan alone that is a tenth of a second).
python3 - "$tmp/empty.tar.gz" <<'PY'
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w:gz") as t:
    t.addfile(tarfile.TarInfo("x"), io.BytesIO(b""))
PY
inflate=$(cpu sh -c "zcat '$tmp/bomb.tar.gz' > /dev/null")
expect_rc 66 env TMPDIR="$scr" "$fabtuned" --once --no-probes --snapshot "$tmp/bomb.tar.gz"
expect_grep "sys/../bomb: 268435456 bytes, more than a snapshot file holds" "$LAST_ERR"
left "a 256 MiB entry"
start=$(cpu "$fabtuned" --once --no-probes --snapshot "$tmp/empty.tar.gz")
judge=$(cpu "$fabtuned" --once --no-probes --snapshot "$tmp/bomb.tar.gz")
awk -v j="$judge" -v s="$start" -v z="$inflate" 'BEGIN { exit !((j - s) * 10 < z) }' &&
    pass "the bomb is refused in $judge s of CPU ($start s to refuse an empty tarball), against $inflate s to inflate it" ||
    fail "the bomb took $judge s of CPU ($start s to refuse an empty tarball), against $inflate s to inflate it (want the difference under a tenth)"
# 257 files of 1 MiB each, each within the per-file limit, are past the total's 256 MiB.
python3 - "$tmp/total.tar.gz" <<'PY'
import gzip, sys, tarfile
mib = gzip.compress(b"\0" * (1 << 20), 9)
with open(sys.argv[1], "wb") as f:
    for i in range(257):
        entry = tarfile.TarInfo("sys/f%d" % i)
        entry.size = 1 << 20
        f.write(gzip.compress(entry.tobuf(format=tarfile.GNU_FORMAT)))
        f.write(mib)
    f.write(gzip.compress(b"\0" * 1024))
PY
expect_rc 66 env TMPDIR="$scr" "$fabtuned" --once --no-probes --snapshot "$tmp/total.tar.gz"
expect_grep "cannot read the snapshot $tmp/total.tar.gz: more than 256 MiB of files" "$LAST_ERR"
left "more than 256 MiB of files"

# 2b. Links out of the tarball, in the Soft-RoCE tree, each to a file of this host: rxe0's
# netdev's operstate an absolute link, its node GUID one that climbs past the top, its firmware
# version a chain that a check of each link alone lets out (x is the top, and fw_ver climbs
# on from x). The tarball's "/" is its own top and ".." stops there: each reads as absent,
# as the tarball's node would have read it, and no byte of the host's file is in a report.
fx=$(shared_fixtures)
mkdir -p "$tmp/links"
cp -a "$fx/soft_roce/sys" "$tmp/links/"
echo "SECRET-OF-THIS-HOST" > "$tmp/secret"
dev=$(readlink -f "$tmp/links/sys/class/infiniband/rxe0")
up=$(printf '../%.0s' $(seq 40))     # from anywhere up to this host's /, and on
ln -sf "$tmp/secret" "$tmp/links/sys/devices/virtual/net/v0/operstate"
ln -sf "$up${tmp#/}/secret" "$dev/node_guid"
ln -s ../../../../.. "$dev/x"                              # sys/devices/virtual/infiniband/rxe0
ln -sf "x/$up${tmp#/}/secret" "$dev/fw_ver"
for f in "$tmp/links/sys/class/net/v0/operstate" "$dev/node_guid" "$dev/fw_ver"; do
    grep -q SECRET "$f" || fail "the tree's $f does not reach the host's file"
done
(cd "$tmp/links" && tar cf "$tmp/links.tar" sys)
expect_rc_in "0 1 2 3" env TMPDIR="$scr" "$fabtuned" --once --json --no-probes --snapshot "$tmp/links.tar" \
    -c "$top_srcdir/tests/rails-only.policy"
jq -r '.rails[0] | "\(.name) \(.fw_ver) \(.node_guid) \(.netdev.name) \(.netdev.operstate)"' "$LAST_OUT" > "$tmp/links.txt"
expect_match '^rxe0/1 null null v0 $' "$tmp/links.txt"   # operstate unread: empty
! grep -q SECRET "$LAST_OUT" "$LAST_ERR" && pass "no byte of the host's file in the report" ||
    fail "the host's file leaked into the report"
left "a tarball with links out"
# 3. Control bytes and invalid UTF-8 in a snapshot's files reach no output raw: a port state
# file that holds "4: ACT<ESC>[31mIVE<0xff>", in the text report, --json (which a strict
# decoder must take), --gids and its --json, and fabtunectl diff of two such snapshots.
mkdir -p "$tmp/hostile"
cp -a "$fx/soft_roce/sys" "$tmp/hostile/"
state=$(find "$tmp/hostile/sys" -path '*/ports/1/state' | head -1)
printf '4: ACT\033[31mIVE\377\n' > "$state"
(cd "$tmp/hostile" && tar cJf "$tmp/hostile.tar.xz" sys)
# clean FILE: no ESC, no other C0 byte but newline and tab, no C1, valid UTF-8.
clean() {
    python3 - "$1" <<'PY'
import json, sys
raw = open(sys.argv[1], "rb").read()
text = raw.decode("utf-8")             # raises on invalid UTF-8
bad = [c for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f]
if bad:
    sys.exit("control characters: %r" % bad[:5])
if sys.argv[1].endswith(".json"):
    json.loads(text)                   # strict: raises on a raw control character
PY
}
for how in "text:" "json:--json" "gids:--gids" "gidsjson:--gids --json"; do
    name=${how%%:*}; opts=${how#*:}
    ext=txt; case $name in *json) ext=json ;; esac
    # shellcheck disable=SC2086
    "$fabtuned" --once --no-probes $opts --snapshot "$tmp/hostile.tar.xz" > "$tmp/out.$name.$ext" 2>/dev/null
    grep -q 'ACT' "$tmp/out.$name.$ext" || [ "${name#gids}" != "$name" ] ||
        fail "$name: the port state is not in the output"
    if err=$(clean "$tmp/out.$name.$ext" 2>&1); then pass "$name: no raw control byte, valid UTF-8"
    else fail "$name: $err"; fi
done
expect_grep 'ACT?[31mIVE' "$tmp/out.text.txt"
cp "$tmp/hostile.tar.xz" "$tmp/hostile2.tar.xz"
ctl="$top_builddir/src/client/fabtunectl"
FABTUNED="$fabtuned" "$ctl" diff "$tmp/hostile.tar.xz" "$tmp/hostile2.tar.xz" > "$tmp/diff.txt" 2>&1
FABTUNED="$fabtuned" "$ctl" --json diff "$tmp/hostile.tar.xz" "$tmp/hostile2.tar.xz" > "$tmp/diff.json" 2>&1
for f in diff.txt diff.json; do
    if err=$(clean "$tmp/$f" 2>&1); then pass "fabtunectl $f: clean"; else fail "fabtunectl $f: $err"; fi
done

# 4. The private directory goes on every way out: a pass judged, a signal to fabtuned while
# it unpacks (fabtuned passes it on, removes the directory, and dies by it), and its pass
# killed outright (a crash, the OOM killer: fabtuned removes the directory, exits 128+9).
expect_rc_in "0 1 2 3" env TMPDIR="$scr" "$fabtuned" --once --no-probes --snapshot "$tmp/hostile.tar.xz"
left "a pass judged"
seq 0 99999 | awk '{ printf "sys/d%d/f%d\n", $1 / 1000, $1 }' | empty_files "$tmp/slow.tar.gz"
# kill_midway SIG WHO: signals fabtuned (WHO=parent) or the child that unpacks and judges
# (WHO=child) once the child writes into its directory; sets rc.
kill_midway() {
    TMPDIR="$scr" "$fabtuned" --once --no-probes --snapshot "$tmp/slow.tar.gz" > /dev/null 2>&1 &
    pid=$!
    for _ in $(seq 600); do
        ls -d "$scr"/fabtuned-snapshot.*/sys > /dev/null 2>&1 && break
        sleep 0.05
    done
    ls -d "$scr"/fabtuned-snapshot.*/sys > /dev/null 2>&1 || fail "$1: fabtuned never began to unpack"
    if [ "$2" = child ]; then kill "-$1" "$(pgrep -P "$pid")"; else kill "-$1" "$pid"; fi
    wait "$pid"; rc=$?
}
kill_midway TERM parent
[ "$rc" -eq 143 ] && pass "SIGTERM midway: fabtuned died by it (143)" || fail "SIGTERM midway: exit $rc, wanted 143"
left "SIGTERM while unpacking"
kill_midway HUP parent
[ "$rc" -eq 129 ] && pass "SIGHUP midway: fabtuned died by it (129)" || fail "SIGHUP midway: exit $rc, wanted 129"
left "SIGHUP while unpacking"
kill_midway KILL child
[ "$rc" -eq 137 ] && pass "the child killed: exit 137" || fail "the child killed: exit $rc, wanted 137"
left "the child killed while unpacking"
finish
