#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/lint.sh: the static checks behind "make lint".
#
#   1. checkpatch.pl --strict on the module, the core and the uapi header
#      (checkpatch.pl, spelling.txt and const_structs.checkpatch come from
#      Debian's linux-source tarball, extracted once into $BUILD/lint/)
#   2. sparse on every module source (make C=2)
#   3. a W=1 module build: no warnings
#   4. the uapi header compiles as C90 (-pedantic) and as C++
#   5. the modules of 3 use none of the kernel's static keys (jump labels)
#
# The kernel builds of 2 and 3 run on a copy of the sources in $BUILD/lint,
# so they never touch the objects or the bloom.ko of the real build; paths
# in their messages are mapped back to the repository's.
#
# Prints every finding as file:line: message under its check, then one
# summary line. Exits 0 iff every check is clean.
#
# Environment: KDIR (default /lib/modules/$(tools/kver.sh)/build), BUILD,
# KSRC_TAR (default /usr/src/linux-source-*.tar.xz).

set -u

repo=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$repo/build}
KDIR=${KDIR:-/lib/modules/$("$repo/tools/kver.sh")/build}
out=$BUILD/lint
scripts=$out/scripts
KSRC_TAR=${KSRC_TAR:-$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | tail -n 1)}

mkdir -p "$out"
dirty=()

# report NAME FILE: prints FILE's findings; records NAME as not clean.
report() {
	if [ -s "$2" ]; then
		echo "lint: $1: NOT clean ($(wc -l <"$2") line(s)):"
		sed 's/^/  /' "$2"
		dirty+=("$1")
	else
		echo "lint: $1: clean"
	fi
}

# 1. checkpatch
if [ ! -x "$scripts/checkpatch.pl" ]; then
	if [ -z "$KSRC_TAR" ]; then
		echo "lint: no /usr/src/linux-source-*.tar.xz: apt-get install linux-source" >&2
		exit 2
	fi
	echo "lint: extracting checkpatch.pl from $KSRC_TAR"
	tar -xJf "$KSRC_TAR" -C "$out" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch' || exit 2
fi
cd "$repo" || exit 2
files=(module/*.c module/*.h module/core/*.c module/core/*.h module/netfilter/*.c)
# --no-tree: this is not a kernel tree; spelling.txt and
# const_structs.checkpatch are found next to the script.
cp_opts=(--strict --no-tree --terse --show-types --no-summary)
"$scripts/checkpatch.pl" "${cp_opts[@]}" -f "${files[@]}" \
	>"$out/checkpatch.txt" 2>&1
# checkpatch applies the uapi rules (no BIT(): userspace lacks it) to files
# under include/uapi/ only, so the header is checked at that path.
mkdir -p "$out/tree/include/uapi/linux/netfilter"
cp uapi/linux/bloom.h "$out/tree/include/uapi/linux/"
cp uapi/linux/netfilter/xt_bloom.h "$out/tree/include/uapi/linux/netfilter/"
(cd "$out/tree" && "$scripts/checkpatch.pl" "${cp_opts[@]}" \
	-f include/uapi/linux/bloom.h include/uapi/linux/netfilter/xt_bloom.h) 2>&1 |
	sed 's|^include/uapi/|uapi/|' >>"$out/checkpatch.txt"
report "checkpatch --strict" "$out/checkpatch.txt"

# 2 and 3: kernel builds on a copy.
if [ ! -d "$KDIR" ]; then
	echo "lint: no kernel build tree at $KDIR" >&2
	exit 2
fi
src=$out/src
rm -rf "$src"
mkdir -p "$src"
cp -r Kbuild VERSION module uapi "$src/"
find "$src" \( -name '*.o' -o -name '*.cmd' -o -name '*.mod*' -o -name '*.ko' \) -delete
# Kernel messages name files relative to the copy: map them back.
unmap() { sed -e "s|$src/||g" -e 's|^\./||'; }

make -C "$KDIR" M="$src" C=2 modules >"$out/sparse.log" 2>&1
rc=$?
# sparse reports as warning/error lines; its "CHECK" lines prove it ran on
# every source (a missing sparse would otherwise look clean).
grep -E ': (warning|error):' "$out/sparse.log" | unmap >"$out/sparse.txt"
[ $rc -ne 0 ] && echo "(sparse build exited with status $rc; see $out/sparse.log)" >>"$out/sparse.txt"
# every source the build compiled (module/core also holds userspace-only
# files that Kbuild does not name), not the .mod.c files it generates
nsrc=$(grep -E '^  CC \[M\] ' "$out/sparse.log" | grep -vc '\.mod\.o$')
nchk=$(grep -c '^  CHECK ' "$out/sparse.log")
[ "$nchk" -ne "$nsrc" ] && echo "(sparse checked $nchk of $nsrc sources; see $out/sparse.log)" >>"$out/sparse.txt"
report "sparse (C=2)" "$out/sparse.txt"

make -s -C "$KDIR" M="$src" clean >/dev/null 2>&1
make -s -C "$KDIR" M="$src" W=1 modules >"$out/w1.log" 2>&1
rc=$?
grep -E ': (warning|error):' "$out/w1.log" | unmap >"$out/w1.txt"
[ $rc -ne 0 ] && echo "(W=1 build exited with status $rc; see $out/w1.log)" >>"$out/w1.txt"
report "W=1 build" "$out/w1.txt"

# 4. The header as C90 and as C++ (botching-up-ioctls: userspace may be
# either).
for h in uapi/linux/bloom.h uapi/linux/netfilter/xt_bloom.h; do
	gcc -std=c90 -pedantic -Wall -Wextra -Werror -fsyntax-only -I uapi \
		-x c "$h" 2>&1
	g++ -Wall -Wextra -Werror -fsyntax-only -I uapi -x c++ "$h" 2>&1
done >"$out/uapi.txt"
report "uapi header as C90 and C++" "$out/uapi.txt"

# 5. A module that uses a static key of the kernel's (a jump label in an
# inline of its headers) makes its load allocate for it, and that
# allocation's failure only WARNs: under fault injection with panic_on_warn
# a failed load would stop the machine instead of failing. Keys of the
# module's own are registered without allocating.
for ko in bloom.ko xt_bloom.ko; do
	nm -u "$src/$ko" | awk '{ print $2 }' | sort >"$out/undefined.txt"
	readelf -rW "$src/$ko" | awk '
		/^Relocation section/ { jt = index($0, "\x27.rela__jump_table\x27") > 0; next }
		jt && NF >= 5 { sub(/\+.*/, "", $5); print $5 }' | sort -u |
		comm -12 - "$out/undefined.txt" |
		sed "s|^|$ko: __jump_table entry for the kernel's static key |"
done >"$out/jump.txt"
report "no static key of the kernel's in the modules" "$out/jump.txt"

if [ ${#dirty[@]} -eq 0 ]; then
	echo "lint: all clean"
	exit 0
fi
echo "lint: not clean: ${dirty[*]}"
exit 1
