#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/install/test_install.sh: run on the HOST after "make" (make check
# runs it; make check-install runs it with BLOOM_TEST_DKMS=1). TAP 13.
#
#   1. make install DESTDIR=...: every file where README's "What goes
#      where" says, one version everywhere (VERSION: module, SONAME,
#      libbloom.pc, bloomctl),
#      every exported function versioned as libbloom.map's nodes say
#      (LIBBLOOM_1.0, LIBBLOOM_1.1) and named in libbloom(3), the bash completion answering from the installed bloomctl
#   2. a tiny program built with "pkg-config --cflags --libs libbloom" against
#      the DESTDIR, linked to libbloom.so.MAJOR, run in the test VM with the
#      installed bloom.ko (one VM boot)
#   3. make uninstall DESTDIR=...: nothing left
#   4. BLOOM_TEST_DKMS=1: make dkms-install into a DESTDIR, then "dkms build"
#      of that copy for KVER in a private DKMS tree (nothing under
#      /var/lib/dkms), its bloom.ko carrying VERSION and loading in the VM
#
# Environment: BUILD, KVER (default tools/kver.sh), BLOOM_TEST_DKMS.

set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
export BUILD=${BUILD:-$repo/build}
KVER=${KVER:-$("$repo/tools/kver.sh")}
VERSION=$(cat "$repo/VERSION")
MAJOR=${VERSION%%.*}
work=$BUILD/install-test
D=$work/destdir
n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"
	[ -s "$work/log" ] && tail -n 15 "$work/log" | sed 's/^/# /'
	return 0
}
check() { local d=$1; shift; if "$@" >"$work/log" 2>&1; then ok "$d"; else not_ok "$d"; fi; }

echo "TAP version 13"
rm -rf "$work"
mkdir -p "$work"

# --- 1. install into a DESTDIR ------------------------------------------------
check "make install DESTDIR=... PREFIX=/usr/local succeeds" \
	make -s -C "$repo" install DESTDIR="$D" PREFIX=/usr/local KVER="$KVER"
P=$D/usr/local
want=(
	"/lib/modules/$KVER/updates/bloom.ko"
	"/lib/modules/$KVER/updates/xt_bloom.ko"
	"$(pkg-config --variable=xtlibdir xtables)/libxt_bloom.so"
	/usr/local/share/man/man8/xt_bloom.8
	/usr/local/sbin/bloom-xdp
	/usr/local/share/man/man8/bloom-xdp.8
	/usr/local/sbin/bloomctl
	"/usr/local/lib/libbloom.so.$VERSION"
	"/usr/local/lib/libbloom.so.$MAJOR"
	/usr/local/lib/libbloom.so
	/usr/local/lib/libbloom.a
	/usr/local/lib/pkgconfig/libbloom.pc
	/usr/local/include/libbloom.h
	/usr/local/include/linux/bloom.h
	/usr/local/include/bloom/bpf.h
	/usr/local/share/man/man8/bloomctl.8
	/usr/local/share/man/man3/libbloom.3
	/usr/local/share/man/man3/bloom_create_opts.3
	/usr/share/bash-completion/completions/bloomctl
	/usr/lib/udev/rules.d/60-bloom.rules
	/usr/lib/sysusers.d/bloom.conf
)
missing=
for f in "${want[@]}"; do [ -e "$D$f" ] || missing+=" $f"; done
check "every file is where it belongs${missing:+ (missing:$missing)}" test -z "$missing"
check "libbloom.so.$VERSION has the SONAME libbloom.so.$MAJOR; the links point to it" \
	sh -c "readelf -d '$P/lib/libbloom.so.$VERSION' | grep -q 'SONAME.*\\[libbloom.so.$MAJOR\\]' &&
	       [ \"\$(readlink '$P/lib/libbloom.so.$MAJOR')\" = libbloom.so.$VERSION ] &&
	       [ \"\$(readlink '$P/lib/libbloom.so')\" = libbloom.so.$MAJOR ]"
check "the installed bloom.ko has MODULE_VERSION $VERSION" \
	sh -c "[ \"\$(modinfo -F version '$D/lib/modules/$KVER/updates/bloom.ko')\" = '$VERSION' ]"
# tools/btf.sh, against the BTF of the kernel the VM boots
check "the installed bloom.ko has module BTF (.BTF, for its BPF kfuncs)" \
	sh -c "readelf -S '$D/lib/modules/$KVER/updates/bloom.ko' | grep -q ' \\.BTF '"
check "the installed bloomctl --version says $VERSION" \
	sh -c "'$P/sbin/bloomctl' --version | grep -qx 'bloomctl $VERSION (libbloom $VERSION, bloom ioctl ABI [0-9]*)'"

# Exports: every bloom_* function of the .so has the version of its node in
# libbloom.map (old nodes never change: a function keeps its version),
# nothing else is exported, every function libbloom.h declares is there and
# libbloom(3) names each one.
objdump -T "$P/lib/libbloom.so.$VERSION" | awk '$4 != "*UND*" && $NF ~ /^bloom_/ { print $(NF-1), $NF }' |
	sort >"$work/exports"
awk '/^LIBBLOOM_[0-9.]+ \{/ { node = $1 }
     /^[[:space:]]+bloom_[a-z0-9_]+;/ { sub(/;.*/, "", $1); print node, $1 }' \
	"$repo/tools/lib/libbloom.map" | sort >"$work/exports.map"
declared=$(sed -nE 's/^[a-z][a-z0-9_ ]*[ *](bloom_[a-z0-9_]+)\(.*/\1/p' "$P/include/libbloom.h" |
	grep -vx bloom_result | sort -u)
check "every exported function carries the symbol version of its node in libbloom.map (LIBBLOOM_1.0, LIBBLOOM_1.1)" \
	sh -c "[ -s '$work/exports' ] && cmp -s '$work/exports' '$work/exports.map' && grep -q '^LIBBLOOM_1.1 bloom_add_estimate\$' '$work/exports'"
check "libbloom.so exports exactly the functions libbloom.h declares" \
	sh -c "[ \"\$(cut -d' ' -f2 '$work/exports' | sort | tr '\n' ' ')\" = \"$(echo $declared) \" ]"
nomention=
for f in $declared bloom_result; do
	grep -q "^\.BI\? \"*[a-z].*$f(" "$P/share/man/man3/libbloom.3" || nomention+=" $f"
done
check "libbloom(3) names every function in its synopsis${nomention:+ (not:$nomention)}" \
	test -z "$nomention"
check "pkg-config finds libbloom $VERSION" \
	sh -c "[ \"\$(PKG_CONFIG_SYSROOT_DIR='$D' PKG_CONFIG_LIBDIR='$P/lib/pkgconfig' pkg-config --modversion libbloom)\" = '$VERSION' ]"

# --- 2. a program built against the installed library ------------------------
cat >"$work/tiny.c" <<'EOF'
/* Built with pkg-config against the installed libbloom; runs in the VM. */
#include <stdio.h>
#include <libbloom.h>

int main(void)
{
	BLOOM_OPTS(bloom_create_opts, o, .type = BLOOM_TYPE_COUNTING,
		   .capacity = 1000, .fpp = 0.01, .flags = BLOOM_CREATE_F_BIND);
	char msg[256];
	int fd = bloom_open(NULL), err;

	if (fd < 0) {
		puts(bloom_strerror(msg, sizeof(msg), BLOOM_OP_OPEN, NULL, fd));
		return 1;
	}
	err = bloom_create_opts(fd, "tiny-install", &o);
	if (err) {
		puts(bloom_strerror(msg, sizeof(msg), BLOOM_OP_CREATE, "tiny-install", err));
		return 1;
	}
	err = bloom_add(fd, "k", 1) < 0 || bloom_query(fd, "k", 1) != 1 ||
	      bloom_delete(fd, "k", 1) != 1 || bloom_query(fd, "k", 1) != 0;
	bloom_close(fd);
	fd = bloom_open(NULL);
	bloom_destroy(fd, "tiny-install");
	printf("libbloom %s: %s\n", bloom_library_version(), err ? "FAIL" : "works");
	return err;
}
EOF
# libbloom.pc requires libsodium (privately): the system's .pc files after
# the installed one
pcdirs=$P/lib/pkgconfig:$(pkg-config --variable pc_path pkg-config)
# shellcheck disable=SC2046 # pkg-config's words are the compiler's arguments
check "a program builds with \$(pkg-config --cflags --libs libbloom)" \
	sh -c "cc -Wall -Werror -o '$work/tiny' '$work/tiny.c' \$(PKG_CONFIG_SYSROOT_DIR='$D' PKG_CONFIG_LIBDIR='$pcdirs' pkg-config --cflags --libs libbloom)"
check "it is linked to libbloom.so.$MAJOR" \
	sh -c "readelf -d '$work/tiny' | grep -q 'NEEDED.*\\[libbloom.so.$MAJOR\\]'"
out=$("$repo/selftests/vm/run.sh" --module "$D/lib/modules/$KVER/updates/bloom.ko" --rmmod \
	--timeout 300 --env LD_LIBRARY_PATH="$P/lib" -- "$work/tiny" 2>&1)
rc=$?
echo "$out" >"$work/vm.log"
check "it runs in the VM with the installed module: create, add, query, delete" \
	sh -c "cat '$work/vm.log'; [ $rc = 0 ] && grep -qx 'libbloom $VERSION: works' '$work/vm.log'"

# The completion, from the installed file and bloomctl.
comp=$(PATH=$P/sbin:$PATH BLOOMCTL_FILTERS_DIR=$work/filters bash -c "
	mkdir -p '$work/filters/spam' '$work/filters/seen'
	. '$D/usr/share/bash-completion/completions/bloomctl'
	t() { COMP_WORDS=(\"\$@\"); COMP_CWORD=\$((\${#COMP_WORDS[@]} - 1)); _bloomctl; echo \"\${COMPREPLY[*]}\"; }
	t bloomctl cr; t bloomctl add s; t bloomctl create x --type ''; t bloomctl test spam --ab" 2>&1)
printf '%s\n' "$comp" >"$work/log"
check "bash completion: verbs, filter names, types and options from bloomctl" \
	test "$comp" = "create
seen spam
standard blocked counting dleft timed
--absent"

# --- 3. uninstall -----------------------------------------------------------------
check "make uninstall DESTDIR=... succeeds" \
	make -s -C "$repo" uninstall DESTDIR="$D" PREFIX=/usr/local KVER="$KVER"
find "$D" ! -type d >"$work/log"
check "make uninstall leaves no file behind" test ! -s "$work/log"

# --- 4. DKMS ------------------------------------------------------------------------
if [ "${BLOOM_TEST_DKMS:-0}" = 1 ]; then
	S=$work/dkms-src T=$work/dkms-tree
	check "make dkms-install DESTDIR=... copies the sources and dkms.conf" \
		sh -c "make -s -C '$repo' dkms-install DESTDIR='$S' KVER='$KVER' &&
		       grep -qx 'PACKAGE_VERSION=\"$VERSION\"' '$S/usr/src/bloom-$VERSION/dkms.conf'"
	mkdir -p "$T"
	check "dkms build of that copy for $KVER succeeds" \
		dkms build -m bloom -v "$VERSION" -k "$KVER" \
			--sourcetree "$S/usr/src" --dkmstree "$T"
	ko=$(find "$T/bloom/$VERSION/$KVER" -name 'bloom.ko*' | head -n 1)
	check "the DKMS-built bloom.ko carries version $VERSION" \
		sh -c "[ -n '$ko' ] && [ \"\$(modinfo -F version '$ko')\" = '$VERSION' ]"
	"$repo/selftests/vm/run.sh" --module "$ko" --rmmod --timeout 300 -- \
		sh -c '"$1" version; r=$?; test -r /sys/kernel/btf/bloom && echo "module BTF: loaded"; exit $r' \
		sh "$BUILD/bin/bloomctl" >"$work/vm.log" 2>&1
	rc=$?
	check "the DKMS-built module loads in the VM and answers" \
		sh -c "cat '$work/vm.log'; [ $rc = 0 ] && grep -q '^module ABI:' '$work/vm.log'"
	check "the kernel took the DKMS-built module's BTF (/sys/kernel/btf/bloom)" \
		grep -q '^module BTF: loaded' "$work/vm.log"
fi

echo "1..$n"
[ "$failed" = 0 ]
