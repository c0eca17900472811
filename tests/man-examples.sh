#!/bin/sh
# SPDX-License-Identifier: ISC
# Every example in the man pages runs as written, where it can run here (issue 43, item 6):
# the command lines of the EXAMPLES of fabtuned(8) and fabtunectl(1) (.EX to .EE, roff's
# escapes undone) are run by sh with the build's fabtuned and fabtunectl first on PATH, each
# with the exit code and output it must give; fabtune.yaml(5)'s EXAMPLE is a policy, checked
# with fabtuned --check-config. The fabtunectl examples ask a daemon this test starts on a
# fixture tree (no rails, a TCP-only policy: READY), through $FABTUNE_SOCKET, as an operator
# would set it; what they name (node17.tar, site.yaml) is made first in their directory.
# tests/fixtures/README's commands run too, from the source tree, with its "build/" the
# build tree and its /tmp/fx a scratch directory.
# An example this test does not know fails it: a new example gets a line here, to run or to
# skip with the reason. Skipped, and why:
#   fabtuned --once --apply, fabtuned --revert: they write this host's sysctls, and vm.* are
#     not per namespace (tests/tuning-live.sh applies and reverts in a network namespace);
#   systemctl enable --now fabtuned, systemctl edit slurmd: they need systemd as PID 1
#     (tests/guest-systemd/run.sh enables the units in a guest);
#   fabtuned --check-config -c /etc/fabtune/fabtune.yaml.new, where no overlay file system
#     can cover /etc in a private mount namespace (it runs there, else).
# Needs root: fabtuned --once reads the live node as root, and the daemon's socket is root's.
. "${top_srcdir:-.}/tests/lib.sh"
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
[ "$(id -u)" = 0 ] || { echo "SKIP: fabtuned --once and the daemon's socket need root"; exit 77; }
bin="$(cd "$top_builddir" && pwd)"
PATH="$bin/src/daemon:$bin/src/client:$PATH"
export PATH

# examples PAGE: the command lines of PAGE's EXAMPLES, one a line, as a reader types them.
examples() {
    sed -n '/^\.SH EXAMPLES/,/^\.SH /p' "$1" | sed -n '/^\.EX/,/^\.EE/p' | grep -v '^\.E[XE]' |
        sed 's/\\-/-/g; s/\\(aq/'"'"'/g; s/\\e/\\/g; s/\\&//g'
}

# What each example must do: "RCS PATTERN" (the exit codes it may give, a line of its output
# to match, or "-" for any output, none too), or "skip REASON". Empty: an example this test
# does not know.
expectation() {
    case $1 in
        "fabtuned --once") echo "2 ^verdict: NOT_READY: .*rails.count" ;;
        "fabtuned --check-config -c /etc/fabtune/fabtune.yaml.new") echo "0 fabtune.yaml.new: valid" ;;
        "fabtuned --once --apply"|"fabtuned --revert")
            echo "skip it writes this host's sysctls (tests/tuning-live.sh: in a namespace)" ;;
        "fabtuned --once --snapshot node17.tar.xz -c site.yaml --json") echo '0,1,2,3 "verdict":"' ;;
        "fabtuned --once --gids") echo "1 ^rails: 0 (no RDMA devices" ;;
        "systemctl "*) echo "skip it needs systemd as PID 1 (tests/guest-systemd/run.sh)" ;;
        "fabtunectl health"*) echo "0 ^fabtune: READY" ;;
        "fabtunectl status") echo "0 ^verdict: READY" ;;
        "fabtunectl checks --failed") echo "0 no failing finding" ;;
        "fabtunectl --json status | jq -r '.rails[] | .name + \" \" + .verdict'") echo "0 -" ;;
        "fabtunectl wait-ready --timeout 300") echo "0 -" ;;
        "fabtunectl apply") echo "0 ^net.core.somaxconn  *4096" ;;
        "fabtunectl probe-now") echo "0 ^probe run started" ;;
        "fabtunectl explain route.arp") echo "0 ^route.arp: no rail answers" ;;
        "fabtunectl explain gid") echo "0 ^  gid.nccl  " ;;
        "fabtunectl snapshot golden.tar"*) echo "0 -" ;;
        "fabtunectl diff golden.tar node17.tar") echo "0,1 -" ;;
    esac
}

# run_example DIR LINE: runs LINE in DIR by its expectation.
run_example() {
    want=$(expectation "$2")
    case $want in
        "") fail "an example no line of this test knows: '$2'"; return ;;
        skip*) echo "skip: '$2': ${want#skip }"; return ;;
    esac
    rcs=${want%% *} pattern=${want#* }
    if [ "$2" = "fabtuned --check-config -c /etc/fabtune/fabtune.yaml.new" ]; then
        config_example "$1" "$2"
    else
        (cd "$1" && sh -c "$2") > "$LAST_OUT" 2> "$LAST_ERR" < /dev/null
    fi
    rc=$?
    [ $rc = 77 ] && { echo "skip: '$2': $(cat "$LAST_ERR")"; return; }
    case ",$rcs," in
        *",$rc,"*) { [ "$pattern" = - ] || grep -q -- "$pattern" "$LAST_OUT"; } && pass "'$2' (exit $rc)" ||
            { fail "'$2': no line matches '$pattern':"; sed 's/^/    /' "$LAST_OUT" "$LAST_ERR" | head -10; } ;;
        *) fail "'$2': exit $rc, wanted $rcs:"; sed 's/^/    /' "$LAST_ERR" | head -10 ;;
    esac
}

# The example under /etc/fabtune, in a private mount namespace whose /etc is an overlay
# over the host's: the shipped policy as fabtune.yaml.new; exit 77 where no overlay mounts.
config_example() {
    unshare -m sh -c '
        mkdir "$1/up" "$1/work" || exit 1
        mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/up,workdir=$1/work" /etc 2>/dev/null ||
            { echo "no overlay over /etc here" >&2; exit 77; }
        mkdir -p /etc/fabtune && cp "$2" /etc/fabtune/fabtune.yaml.new && cd "$1" && sh -c "$3"' \
        sh "$1" "$top_srcdir/conf/fabtune.yaml" "$2" > "$LAST_OUT" 2> "$LAST_ERR" < /dev/null
}

daemon_scratch examples no_rdma
ex="$tmp/ex"
mkdir "$ex" "$tmp/etc"

# fabtuned(8). node17.tar.xz: a snapshot of this node; site.yaml: the shipped example.
"$ctl" snapshot "$ex/node17.tar.xz" > /dev/null 2>&1 && cp "$top_srcdir/conf/examples/roce-8rail.yaml" "$ex/site.yaml" ||
    fail "cannot make node17.tar.xz"
examples "$top_srcdir/man/fabtuned.8" > "$tmp/fabtuned.ex"
[ "$(wc -l < "$tmp/fabtuned.ex")" -ge 7 ] && pass "fabtuned(8) has $(wc -l < "$tmp/fabtuned.ex") examples" ||
    fail "fabtuned(8)'s examples: $(cat "$tmp/fabtuned.ex")"
while IFS= read -r line; do
    case $line in "fabtuned --check-config"*) run_example "$tmp/etc" "$line" ;; *) run_example "$ex" "$line" ;; esac
done < "$tmp/fabtuned.ex"

# fabtunectl(1), against a daemon: a TCP-only node (no rails, as the policy expects) whose
# one sysctl is as the policy wants, probing its loopback address.
mkdir -p "$tmp/proc/sys/net/core"
echo 4096 > "$tmp/proc/sys/net/core/somaxconn"
printf 'version: 1\nrails: {expect_count: 0}\ntuning: {mode: verify, sysctl: {net.core.somaxconn: 4096}}\n' \
    > "$tmp/policy.yaml"
fabtuned_start
FABTUNE_SOCKET="$sock"
export FABTUNE_SOCKET
# The first probe run over (probe-now would be EBUSY during it), bounded.
for _ in $(seq 100); do
    "$ctl" --json status 2>/dev/null | jq -e '.probing == false and .verdict == "READY"' > /dev/null && break
    sleep 0.2
done
"$ctl" snapshot "$ex/node17.tar" > /dev/null 2>&1 || fail "cannot make node17.tar"
examples "$top_srcdir/man/fabtunectl.1" > "$tmp/fabtunectl.ex"
[ "$(wc -l < "$tmp/fabtunectl.ex")" -ge 11 ] && pass "fabtunectl(1) has $(wc -l < "$tmp/fabtunectl.ex") examples" ||
    fail "fabtunectl(1)'s examples: $(cat "$tmp/fabtunectl.ex")"
while IFS= read -r line; do
    run_example "$ex" "$line"
done < "$tmp/fabtunectl.ex"
[ -s "$ex/golden.tar" ] && pass "the snapshot example wrote golden.tar" || fail "no golden.tar"
fabtuned_stop

# fabtune.yaml(5)'s EXAMPLE is a policy file.
sed -n '/^\.SH EXAMPLE$/,/^\.SH /p' "$top_srcdir/man/fabtune.yaml.5" | sed -n '/^\.nf/,/^\.fi/p' |
    grep -v '^\.\(nf\|fi\)' | sed 's/\\-/-/g' > "$ex/example.yaml"
expect_match '^version: 1$' "$ex/example.yaml"
expect_rc 0 "$fabtuned" --check-config -c "$ex/example.yaml"

# tests/fixtures/README's commands, from the source tree: each indented line (with its
# continuation lines) that starts with tests/ or build/.
awk '/^    (tests|build)\// { cmd = $0; while (cmd ~ /\\$/ && (getline more) > 0) cmd = substr(cmd, 1, length(cmd) - 1) " " more; print cmd }' \
    "$top_srcdir/tests/fixtures/README" | sed 's/  *# .*//; s/^ *//; s/   */ /g' > "$tmp/readme.ex"
[ "$(wc -l < "$tmp/readme.ex")" -ge 3 ] && pass "tests/fixtures/README has $(wc -l < "$tmp/readme.ex") commands" ||
    fail "tests/fixtures/README's commands: $(cat "$tmp/readme.ex")"
while IFS= read -r line; do
    cmd=$(echo "$line" | sed "s|^build/|$bin/|; s|/tmp/fx|$tmp/fx-readme|g")
    (cd "$top_srcdir" && sh -c "$cmd") > "$LAST_OUT" 2> "$LAST_ERR" < /dev/null
    rc=$?
    case $line in
        tests/fixtures/make-fixtures.sh*) want="0 -" ;;
        *mlx5_8rail_rail_down*) want="2 ^verdict: NOT_READY: 4 errors (port.state, port.phys_state, netdev.oper, netdev.carrier)" ;;
        *h200-vm-snapshot*) want="2 ^verdict: NOT_READY: 1 error (rails.count)" ;;
        *) want="" ;;
    esac
    if [ -z "$want" ]; then fail "a command of tests/fixtures/README this test does not know: $line"
    elif [ "$rc" = "${want%% *}" ] && { [ "${want#* }" = - ] || grep -q -- "${want#* }" "$LAST_OUT"; }; then
        pass "README: $line"
    else fail "README: '$line': exit $rc, wanted ${want%% *} and '${want#* }'"; tail -n 3 "$LAST_OUT" "$LAST_ERR"; fi
done < "$tmp/readme.ex"
finish
