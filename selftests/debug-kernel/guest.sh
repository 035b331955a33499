#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/debug-kernel/guest.sh: runs INSIDE the debug-kernel VM (make
# check-debug: selftests/vm/run.sh --kernel ... -- selftests/debug-kernel/
# guest.sh), with bloom.ko loaded. Prints TAP 13:
#
#   1..2
#   # <selftests/run_tests.sh's TAP, one level deeper>
#   ok 1 selftests: bloom-debug: run_tests.sh
#   ok 2 selftests: bloom-debug: kmemleak
#
# kmemleak (automatic scanning is off in this kernel; the suite triggers it):
#   - before the suite: scan, then "clear". Suspects found there are the
#     boot's and the insmod's; they are printed, and the ones whose backtrace
#     names bloom fail the kmemleak test. "clear" then forgets them all, so
#   - after the suite (which ends with rmmod bloom): two scans, 6 s apart
#     (kmemleak does not report objects younger than 5 s, and a second scan
#     drops transient false positives), then read the report: ANY suspect
#     there fails the test and is printed verbatim. Not only those naming
#     bloom: once the module is unloaded, frames in it have no symbol left,
#     and a leak of a kernel object the module asked for (a kobject, a file)
#     shows kernel frames only.
# Every other checker (KASAN, UBSAN, lockdep, DEBUG_ATOMIC_SLEEP,
# DEBUG_OBJECTS, DEBUG_LIST, hung tasks) reports in the kernel log: with
# panic_on_warn=1 most of them panic the VM, and run.sh fails the run on any
# "BUG:", "WARNING:", "INFO:", "UBSAN:" or "leak" line in the log.
#
# BLOOM_DEBUG_SUITES (space-separated commands, default selftests/run_tests.sh)
# replaces the suite; each becomes one nested result.
#
# Each test program gets BLOOM_TEST_TIMEOUT seconds (default here 3600, not
# the 400 of ../settings): under TCG a KASAN kernel starts processes so
# slowly that the CLI test, which starts hundreds, had 48 of its 111 checks
# done when 400 s were up.

set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
read -r -a suites <<<"${BLOOM_DEBUG_SUITES:-selftests/run_tests.sh}"
kml=/sys/kernel/debug/kmemleak
export BLOOM_TEST_TIMEOUT=${BLOOM_TEST_TIMEOUT:-3600}
# run_tests.sh's last step unloads the module while filter releases are
# still deferred (DEBUG_KOBJECT_RELEASE), then waits this long, so that a
# release left to run in the freed module would fault before the log scan.
export BLOOM_UNLOAD_SETTLE=${BLOOM_UNLOAD_SETTLE:-5}
# bloom_faults: fault points taken within 40 minutes (the sweep that runs
# over and the ones after it SKIP), so that the run stays inside make
# check-debug's DEBUG_TIMEOUT
export BLOOM_FAULTS_BUDGET=${BLOOM_FAULTS_BUDGET:-2400}
# xt_bloom.ko built for this kernel (make check-debug builds it beside
# bloom.ko in $BUILD/debug-module): the tests' default, the tree's
# xt_bloom.ko, is built for Debian's kernel and this one refuses it.
if [ -z "${XT_BLOOM_KO:-}" ] && [ -e "${BUILD:-}/debug-module/xt_bloom.ko" ]; then
	export XT_BLOOM_KO=$BUILD/debug-module/xt_bloom.ko
fi
failed=0
num=0

result() { # result 0|N NAME [COMMENT]
	num=$((num + 1))
	if [ "$1" = 0 ]; then
		echo "ok $num selftests: bloom-debug: $2"
	else
		echo "not ok $num selftests: bloom-debug: $2${3:+ # $3}"
		failed=1
	fi
}

echo "TAP version 13"
echo "1..$((${#suites[@]} + 1))"
echo "# kernel $(uname -r): $(grep -oE 'panic_on_warn=[0-9]+' /proc/cmdline || echo 'no panic_on_warn')"

[ -e /sys/kernel/debug/kmemleak ] ||
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
kml_ok=0
if [ -w "$kml" ] && echo scan >"$kml" 2>/dev/null; then
	kml_ok=1
	base=$(cat "$kml")
	bloom_base=0
	if [ -n "$base" ]; then
		n=$(grep -c '^unreferenced object' <<<"$base")
		if grep -qi bloom <<<"$base"; then
			bloom_base=1
			echo "# kmemleak: suspects after boot and insmod, naming bloom:"
		else
			echo "# kmemleak: $n suspect(s) after boot and insmod (none names bloom; ignored):"
		fi
		sed 's/^/#   /' <<<"$base" | head -n 200
	fi
	echo clear >"$kml"
else
	echo "# kmemleak: $kml is not usable (kernel without CONFIG_DEBUG_KMEMLEAK, or it disabled itself; see dmesg)"
	dmesg | grep -i kmemleak | sed 's/^/#   /'
fi

cd "$repo" || exit 1
for s in "${suites[@]}"; do
	t0=$(date +%s)
	"$s" 2>&1 | sed -u 's/^/# /'
	rc=${PIPESTATUS[0]}
	echo "# $s took $(($(date +%s) - t0)) s"
	result "$rc" "$(basename "$s")" "${rc:+exit=$rc}"
done

if [ $kml_ok = 1 ]; then
	t0=$(date +%s)
	echo scan >"$kml"
	sleep 6
	echo scan >"$kml"
	leaks=$(cat "$kml")
	echo "# kmemleak: two scans took $(($(date +%s) - t0)) s"
	if [ -n "$leaks" ] || [ "$bloom_base" = 1 ]; then
		if [ -n "$leaks" ]; then
			echo "# kmemleak: $(grep -c '^unreferenced object' <<<"$leaks") suspect(s) after the suite:"
			sed 's/^/#   /' <<<"$leaks"
		fi
		result 1 kmemleak "suspected leaks"
	else
		echo "# kmemleak: no suspects"
		result 0 kmemleak
	fi
else
	result 1 kmemleak "kmemleak not available"
fi
exit $failed
