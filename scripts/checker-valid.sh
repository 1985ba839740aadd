#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# checker-valid.sh CHECK [FLAGS]: prints 1 when the source checker (sparse)
# runs and understands __typeof_unqual__, else 0.  Debian's linux-kbuild
# packages of 7.x lack the kernel's own scripts/checker-valid.sh, which the
# 7.x Makefile asks before honouring C=1 (without it, C=1 is silently
# dropped); scripts/fetch-kernel puts this probe there.  7.x headers use
# __typeof_unqual__ whenever __CHECKER__ is defined (compiler_types.h).
command -v "$1" >/dev/null 2>&1 || { echo 0; exit 0; }
tmp=$(mktemp --suffix=.c) || { echo 0; exit 0; }
trap 'rm -f "$tmp"' EXIT
printf 'static inline int probe(const int *p)\n{\n\t__typeof_unqual__(*p) v = *p;\n\treturn v;\n}\n' > "$tmp"
if "$@" "$tmp" 2>&1 | grep -q -i error; then
	echo 0
else
	echo 1
fi
