#!/bin/sh
# SPDX-License-Identifier: ISC
# Builds the Debian package from this tree (its tracked and new files) in a scratch copy,
# so the tree's own build directories stay untouched, then runs lintian on it.
#   scripts/build-deb.sh [OUTDIR]       (default: build-deb/)
# Prints the path of the .deb last. Fails on any lintian error or warning.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build-deb}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
src="$work/fabtune-$version"
mkdir -p "$src"
# Tracked and new files, less those deleted in the work tree (listed twice: uniq -u).
(cd "$top" && { git ls-files --cached --others --exclude-standard; git ls-files --deleted; } |
    sort | uniq -u | tar --verbatim-files-from -cf - -T -) | tar -xf - -C "$src"
(cd "$src" && dpkg-buildpackage -us -uc -b -j"$(nproc)") > "$out/build.log" 2>&1 ||
    { tail -40 "$out/build.log"; echo "build-deb: dpkg-buildpackage failed (see $out/build.log)" >&2; exit 1; }
rm -f "$out"/fabtune_*.deb "$out"/fabtune-dbgsym_*.deb
mv "$work"/fabtune_*.deb "$work"/*.changes "$work"/*.buildinfo "$out/" 2>/dev/null || true
mv "$work"/fabtune-dbgsym_*.deb "$out/" 2>/dev/null || true
deb=$(ls "$out"/fabtune_"$version"_*.deb)

# Lintian on the binary package: errors and warnings fail; overrides are in
# debian/fabtune.lintian-overrides, each with its reason.
lintian --fail-on error,warning --display-info "$deb" > "$out/lintian.txt" 2>&1 ||
    { cat "$out/lintian.txt"; echo "build-deb: lintian reports errors or warnings" >&2; exit 1; }
echo "lintian: $(grep -c . "$out/lintian.txt") lines (info and overridden only):"
sed 's/^/  /' "$out/lintian.txt"
echo "$deb"
