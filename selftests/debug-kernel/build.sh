#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/debug-kernel/build.sh [--print-kdir | --force]
#
# Builds, once, a small x86_64 kernel with the kernel's own checkers (KASAN,
# kmemleak, lockdep, UBSAN, DEBUG_OBJECTS, ...) from Debian's linux-source-6.1
# tarball, for "make check-debug". See selftests/debug-kernel/README.
#
# Cache: $BLOOM_DEBUG_KERNEL_CACHE (default /var/cache/bloom/debug-kernel),
# OUTSIDE the source tree:
#   src/                        the configured, built kernel tree; it is the
#                               KDIR for the out-of-tree build of bloom.ko
#   src/vmlinux                 the image run.sh --kernel boots (PVH entry)
#   src/arch/x86/boot/bzImage   the same as a bzImage
#   stamp                       key of a finished build (see below)
#   build.log, times            the build's output and its measured times
# It is rebuilt only when the key changes: this script, debug.config, the
# tarball (size, mtime, linux-source-6.1 package version) or the compiler. An
# interrupted build with the same key resumes where it stopped (make is
# incremental). --force throws the cache away first. Concurrent callers
# serialise on a lock in the cache.
#
# Environment: BLOOM_DEBUG_KERNEL_CACHE, BLOOM_LINUX_SOURCE (the tarball,
# default /usr/src/linux-source-6.1.tar.xz), BLOOM_DEBUG_KERNEL_JOBS (make
# -j, default 2). The build runs under nice -n 19 (the machines are shared).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SELF=$here/$(basename "${BASH_SOURCE[0]}")
fragment=$here/debug.config
cache=${BLOOM_DEBUG_KERNEL_CACHE:-/var/cache/bloom/debug-kernel}
tarball=${BLOOM_LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
jobs=${BLOOM_DEBUG_KERNEL_JOBS:-2}
src=$cache/src

die() { echo "debug-kernel/build.sh: $*" >&2; exit 1; }
say() { echo "debug-kernel/build.sh: $*" >&2; }

case ${1:-} in
--print-kdir) echo "$src"; exit 0 ;;
--force) force=1 ;;
'') force=0 ;;
*) die "usage: build.sh [--print-kdir | --force]" ;;
esac

[ -r "$tarball" ] || die "no kernel source tarball $tarball: install linux-source-6.1 (tools/deps.sh debug)"
for t in make gcc flex bison bc xz tar sha256sum flock perl pahole; do
	command -v $t >/dev/null || die "$t not found: run tools/deps.sh debug (as root)"
done
[ -e /usr/include/libelf.h ] || [ -e /usr/include/gelf.h ] ||
	die "libelf headers missing: run tools/deps.sh debug (libelf-dev)"
[ -e /usr/include/openssl/ssl.h ] || die "openssl headers missing: run tools/deps.sh debug (libssl-dev)"

mkdir -p "$cache"
exec 9>"$cache/lock"
if ! flock -n 9; then
	say "another build holds $cache/lock; waiting"
	flock 9
fi

key=$( {
	sha256sum "$SELF" "$fragment" | cut -d' ' -f1
	stat -L -c '%s %Y' "$tarball"
	dpkg-query -W -f='${Version}\n' linux-source-6.1 2>/dev/null || true
	gcc --version | head -n 1
} | sha256sum | cut -d' ' -f1)

image=$src/vmlinux
if [ $force = 0 ] && [ "$(cat "$cache/stamp" 2>/dev/null)" = "$key" ] && [ -s "$image" ] &&
	[ -s "$src/Module.symvers" ]; then
	say "cached: $src ($(cat "$src/include/config/kernel.release"))"
	exit 0
fi
rm -f "$cache/stamp"

times=$cache/times
log=$cache/build.log
TIMEFORMAT='%R %U %S'
# phase NAME CMD...: runs CMD with its output in build.log, appends
# "NAME wall user sys" (seconds) to the times file
phase() {
	local name=$1 t
	shift
	say "$name ..."
	echo "=== $name: $*" >>"$log"
	if ! { time "$@" >>"$log" 2>&1; } 2>"$cache/time.tmp"; then
		tail -n 40 "$log" >&2
		die "$name failed (full log: $log)"
	fi
	t=$(tail -n 1 "$cache/time.tmp")
	echo "$name $t" >>"$times"
	say "$name took ${t%% *} s wall"
}

# 1. Extract (skipped when an interrupted build with the same key left a
# configured tree).
if [ $force = 1 ] || [ "$(cat "$cache/src.key" 2>/dev/null)" != "$key" ] || [ ! -f "$src/.config" ]; then
	rm -rf "$src" "$cache/src.key" "$cache/extract.tmp"
	: >"$log"
	: >"$times"
	mkdir -p "$cache/extract.tmp"
	phase extract nice -n 19 tar -xf "$tarball" -C "$cache/extract.tmp"
	top=$(find "$cache/extract.tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	[ -n "$top" ] && [ -f "$top/Makefile" ] || die "no kernel tree in $tarball"
	mv "$top" "$src"
	rm -rf "$cache/extract.tmp"

	# 2. Configure: defconfig + kvm_guest.config + debug.config
	mk=(nice -n 19 make -C "$src" ARCH=x86_64)
	phase configure bash -c '
		set -e
		frag=$1
		shift
		"$@" defconfig
		"$@" kvm_guest.config
		(cd "$0" && scripts/kconfig/merge_config.sh -m .config "$frag")
		"$@" olddefconfig' "$src" "$fragment" "${mk[@]}"
	# Every line of the fragment must have survived olddefconfig.
	bad=0
	while IFS= read -r line; do
		case $line in '' | '#'*) continue ;; esac
		sym=${line%%=*}
		want=${line#*=}
		have=$(grep -E "^$sym=" "$src/.config" | head -n 1 | cut -d= -f2- || true)
		if [ "$want" = n ]; then
			[ -z "$have" ] || [ "$have" = n ] || { say "$sym: wanted n, got $have"; bad=1; }
		elif [ "$have" != "$want" ]; then
			say "$sym: wanted $want, got ${have:-unset} (a dependency is missing?)"
			bad=1
		fi
	done <"$fragment"
	[ $bad = 0 ] || die "the configuration does not match debug.config (see above); $src/.config"
	echo "$key" >"$cache/src.key"
else
	say "resuming the build in $src"
fi

# 3. Build: the image, the (few) modules, and Module.symvers + the scripts
# an out-of-tree module build needs (modules_prepare is part of modules).
phase build nice -n 19 make -C "$src" ARCH=x86_64 -j"$jobs" vmlinux bzImage modules
[ -s "$image" ] && [ -s "$src/Module.symvers" ] || die "the build left no $image or Module.symvers"
echo "$key" >"$cache/stamp"
rel=$(cat "$src/include/config/kernel.release")
size=$(du -sm "$src" | cut -f1)
echo "size_mb $size" >>"$times"
say "built $rel in $src ($size MB); times (wall user sys, s):"
sed 's/^/  /' "$times" >&2
