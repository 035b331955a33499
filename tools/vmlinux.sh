#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/vmlinux.sh IMAGE OUT: writes the ELF vmlinux inside the kernel image
# IMAGE (a bzImage such as /boot/vmlinuz-KVER) to OUT, as the kernel's
# scripts/extract-vmlinux does: the first compressed stream (xz, zstd or
# gzip) that unpacks to an ELF file. Exits 1, leaving no OUT, when there is
# none. Used by the test VM (selftests/vm/run.sh boots the vmlinux) and by
# tools/btf.sh (the base BTF of a kernel that is not running).
set -u

image=$1
out=$2
tmp=$out.tmp.$$
trap 'rm -f "$tmp"' EXIT

is_elf() {
	[ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ]
}

# try MAGIC TOOL...: unpack from the first offset of MAGIC with TOOL
try() {
	magic=$1
	shift
	command -v "$1" >/dev/null || return 1
	off=$(LC_ALL=C grep -obUaP "$magic" "$image" 2>/dev/null | head -n 1 | cut -d: -f1)
	[ -n "$off" ] || return 1
	tail -c +$((off + 1)) "$image" | "$@" >"$tmp" 2>/dev/null
	is_elf "$tmp"
}

[ -r "$image" ] || { echo "vmlinux.sh: cannot read $image" >&2; exit 1; }
if try '\xfd7zXZ\x00' xz -dcq || try '\x28\xb5\x2f\xfd' zstd -dcq ||
	try '\x1f\x8b\x08' gzip -dcq; then
	mv -f "$tmp" "$out"
	exit 0
fi
exit 1
