#!/bin/sh
# SPDX-License-Identifier: ISC
# Hostile snapshot tarballs, built here: the entry limit hit through an entry's implied
# parent directories names itself (exit 66 with the reason), and a gzip bomb under a name
# that leaves the top is judged by its header's size before a byte of it is inflated, and
# control bytes and invalid UTF-8 in a snapshot's files reach no output raw.
. "${top_srcdir:-.}/tests/lib.sh"

fabtuned="$top_builddir/src/daemon/fabtuned"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. "x", then 100000 files in d/: each file adds itself and its parent d, so the 200000th
# entry is an implied parent (add_parents), not a listed one. Headers written by hand:
# tarfile takes seconds for 100001 entries on a loaded machine.
python3 - "$tmp/many.tar.gz" <<'PY'
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
names = ["x"] + ["d/f%d" % i for i in range(100000)]
with open(sys.argv[1], "wb") as f:
    f.write(gzip.compress(b"".join(map(header, names)) + b"\0" * 1024, 1))
PY
expect_rc 66 "$fabtuned" --once --no-probes --snapshot "$tmp/many.tar.gz"
expect_grep "cannot read the snapshot $tmp/many.tar.gz: more than 200000 entries" "$LAST_ERR"

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
expect_rc 66 "$fabtuned" --once --no-probes --snapshot "$tmp/bomb.tar.gz"
expect_grep "sys/../bomb: 268435456 bytes, more than a snapshot file holds" "$LAST_ERR"
start=$(cpu "$fabtuned" --once --no-probes --snapshot "$tmp/empty.tar.gz")
judge=$(cpu "$fabtuned" --once --no-probes --snapshot "$tmp/bomb.tar.gz")
awk -v j="$judge" -v s="$start" -v z="$inflate" 'BEGIN { exit !((j - s) * 10 < z) }' &&
    pass "the bomb is refused in $judge s of CPU ($start s to refuse an empty tarball), against $inflate s to inflate it" ||
    fail "the bomb took $judge s of CPU ($start s to refuse an empty tarball), against $inflate s to inflate it (want the difference under a tenth)"
# 3. Control bytes and invalid UTF-8 in a snapshot's files reach no output raw: a port state
# file that holds "4: ACT<ESC>[31mIVE<0xff>", in the text report, --json (which a strict
# decoder must take), --gids and its --json, and fabtunectl diff of two such snapshots.
fx=$(shared_fixtures)
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
finish
