#!/bin/sh
# SPDX-License-Identifier: ISC
# Turns a file into a C array: embed.sh INPUT SYMBOL > OUTPUT.c
# Used to compile conf/fabtune.yaml into fabtuned as the built-in default policy.
set -eu
in=$1 sym=$2
printf '/* Generated from %s by build-aux/embed.sh; do not edit. */\n' "$(basename "$in")"
printf '#include <stddef.h>\n\nconst char %s[] = {\n' "$sym"
od -An -v -tx1 "$in" | sed -e 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g' -e 's/^/    /'
printf '    0x00\n};\nconst size_t %s_len = sizeof(%s) - 1;\n' "$sym" "$sym"
