#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Module BTF for kernels whose headers package has no vmlinux (Debian's):
# Kbuild then prints "Skipping BTF generation" and bloom.ko has no .BTF, so
# BPF programs cannot call its kfuncs (module/bpf.c). This script does what
# Kbuild's modfinal step would have done.
#
#   tools/btf.sh resolve-btfids
#	builds resolve_btfids from the kernel source tarball
#	(/usr/src/linux-source-*.tar.xz) into the cache, once; tools/deps.sh
#	runs it.
#   tools/btf.sh module KVER KO...
#	adds .BTF to each KO built for kernel KVER: pahole -J against the
#	kernel's own BTF, then resolve_btfids. The base BTF is
#	/sys/kernel/btf/vmlinux when KVER is the running kernel, else the .BTF
#	of the vmlinux inside /boot/vmlinuz-KVER (cached). A KO that has .BTF
#	already is left alone. When something is missing it says so once and
#	exits 0: the module works without BTF, only its kfuncs are not
#	registered.
#
# Environment: BLOOM_BTF_CACHE (default /var/cache/bloom/btf, or
# $BUILD/btf when that is not writable), PAHOLE (pahole), RESOLVE_BTFIDS
# (default: the cache's), KSRC_TAR.
set -u

here=$(cd "$(dirname "$0")" && pwd)
PAHOLE=${PAHOLE:-pahole}
cache=${BLOOM_BTF_CACHE:-/var/cache/bloom/btf}
if ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
	cache=${BUILD:-$(cd "$here/.." && pwd)/build}/btf
	mkdir -p "$cache"
fi
KSRC_TAR=${KSRC_TAR:-$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | tail -n 1)}
RESOLVE_BTFIDS=${RESOLVE_BTFIDS:-$cache/resolve_btfids}

skip() {
	echo "btf: $1: bloom.ko is built without BTF, so BPF programs cannot call its kfuncs (everything else works)" >&2
	exit 0
}

build_resolve_btfids() {
	[ -x "$RESOLVE_BTFIDS" ] && return 0
	[ -n "$KSRC_TAR" ] || { echo "btf: no kernel source tarball (apt-get install linux-source-6.1)" >&2; return 1; }
	src=$cache/src.$$
	rm -rf "$src"
	mkdir -p "$src/out"
	# resolve_btfids builds its own libbpf and libsubcmd from tools/;
	# libbpf's helper definitions come from scripts/bpf_doc.py and the uapi
	echo "btf: building resolve_btfids from $KSRC_TAR"
	if tar -xJf "$KSRC_TAR" -C "$src" --strip-components=1 --wildcards \
		'*/tools/bpf' '*/tools/build' '*/tools/include' '*/tools/lib' \
		'*/tools/scripts' '*/tools/arch/x86' '*/scripts/bpf_doc.py' \
		'*/include/uapi/linux/bpf.h' 2>/dev/null &&
		make -s -C "$src/tools/bpf/resolve_btfids" OUTPUT="$src/out/" >"$src/build.log" 2>&1 &&
		install -m 755 "$src/out/resolve_btfids" "$RESOLVE_BTFIDS"; then
		rm -rf "$src"
		return 0
	fi
	echo "btf: building resolve_btfids failed (libelf-dev and zlib1g-dev are needed):" >&2
	tail -n 20 "$src/build.log" >&2 2>/dev/null
	rm -rf "$src"
	return 1
}

# base_btf KVER: prints the path of KVER's vmlinux BTF, or nothing
base_btf() {
	if [ "$1" = "$(uname -r)" ] && [ -r /sys/kernel/btf/vmlinux ]; then
		echo /sys/kernel/btf/vmlinux
		return
	fi
	image=/boot/vmlinuz-$1
	out=$cache/vmlinux-$1.btf
	[ -r "$image" ] || return
	if [ ! -s "$out" ] || [ "$out" -ot "$image" ]; then
		"$here/vmlinux.sh" "$image" "$out.elf" || return
		objcopy -O binary --only-section=.BTF "$out.elf" "$out.tmp" 2>/dev/null
		rm -f "$out.elf"
		[ -s "$out.tmp" ] || { rm -f "$out.tmp"; return; }
		mv -f "$out.tmp" "$out"
	fi
	echo "$out"
}

case ${1:-} in
resolve-btfids)
	build_resolve_btfids
	exit
	;;
module)
	[ $# -ge 3 ] || { echo "usage: tools/btf.sh module KVER KO..." >&2; exit 2; }
	;;
*)
	echo "usage: tools/btf.sh resolve-btfids | module KVER KO..." >&2
	exit 2
	;;
esac

kver=$2
shift 2
lacking=
for ko; do
	LC_ALL=C readelf -S "$ko" 2>/dev/null | grep -q ' \.BTF ' || lacking="$lacking $ko"
done
[ -n "$lacking" ] || exit 0

command -v "$PAHOLE" >/dev/null || skip "no pahole (apt-get install dwarves)"
build_resolve_btfids || skip "no resolve_btfids"
base=$(base_btf "$kver")
[ -n "$base" ] || skip "no BTF of kernel $kver (neither /sys/kernel/btf/vmlinux nor /boot/vmlinuz-$kver has it)"
# the flags Kbuild gives pahole for this kernel
flags=
kdir=/lib/modules/$kver/build
[ -x "$kdir/scripts/pahole-flags.sh" ] &&
	flags=$(PAHOLE=$PAHOLE "$kdir/scripts/pahole-flags.sh")
for ko in $lacking; do
	echo "  BTF [M] $ko (base: $base)"
	# on a copy, so that a failure leaves the module as Kbuild made it
	cp -p "$ko" "$ko.btf"
	# shellcheck disable=SC2086
	if ! "$PAHOLE" -J $flags --btf_base "$base" "$ko.btf" >/dev/null ||
		! "$RESOLVE_BTFIDS" -b "$base" "$ko.btf"; then
		rm -f "$ko.btf"
		echo "btf: adding BTF to $ko failed" >&2
		exit 1
	fi
	mv -f "$ko.btf" "$ko"
done
