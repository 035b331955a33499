#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/check.sh: every bloom test, run on the HOST by "make check"
# (after "make all" built bloom.ko and the tools):
#
#   1. the userspace unit tests:  make -C selftests/unit run   (TAP)
#      and a short libFuzzer round: make -C tools/fuzz check    (TAP)
#   2. build the kselftests:      make -C selftests
#      and check that the VM reaches a directory under /tmp:
#                                     selftests/vm/test_share.sh (TAP)
#      and that the README's iptables recipe runs in "make vm":
#                                     selftests/vm/test_readme.sh (TAP)
#      and that make install/uninstall work into a DESTDIR:
#                                     selftests/install/test_install.sh (TAP)
#      and the Debian packages for the VM's test_deb.sh: make deb
#   3. the kselftests in the VM:  selftests/vm/run.sh --timeout 7200 -- \
#                                     selftests/run_tests.sh
#   4. count, and end with exactly one line "N passed, N failed" (with
#      ", N skipped" appended when something was skipped).
#
# Options, from the environment (make check-debug uses them):
#   BLOOM_CHECK_UNIT=0   skip step 1 and the libFuzzer round (neither involves
#                        the kernel)
#   BLOOM_CHECK_INSTALL=0 skip the install test (2c)
#   BLOOM_CHECK_DEB=1    also install the Debian packages (2d) in the VM
#                        (selftests/deb/test_deb.sh): its DKMS build of the
#                        module under TCG took 50 minutes on a loaded host,
#                        so by default the packages are built and checked
#                        with lintian, and that test skips, saying so
#   BLOOM_VM_OPTS="..."  more selftests/vm/run.sh options for step 3, after
#                        the default --timeout 7200 (so they override it), e.g.
#                        "--kernel IMAGE --module KO --timeout 7200"
#   BLOOM_VM_CMD="..."   the command run in the VM instead of
#                        selftests/run_tests.sh (a TAP producer)
#
# Everything that runs is printed as it runs. Exit 0 iff nothing failed, at
# least one test passed, and the VM run itself succeeded.
#
# Counting rule (the same for the unit-test TAP and the VM TAP):
#   - Every "ok"/"not ok" line counts, at any nesting level. The nesting
#     level of a line is the number of leading "# " prefixes (kselftest
#     runners prefix a program's own TAP with "# ").
#   - Except a line that closes a nested stream: a result at level d that
#     follows results or a plan at level d+1 is that program's summary. Its
#     children were counted; it is not counted again. If it says "not ok"
#     while none of its children failed (the program crashed or exited
#     non-zero after its tests passed), it counts as one failure, so a
#     failure is never lost and never counted twice.
#   - A result line carrying "# SKIP" is a skip, neither passed nor failed.
#   - Results a plan ("1..N") promised but that never came (a timeout or a
#     VM crash in the middle of a program) count as failed, one each.
#   - Steps that produce no TAP of their own count as one failure each when
#     they fail: unit tests missing or "make" failing without a failed test,
#     the kselftest build failing, and the VM run exiting non-zero for any
#     reason its TAP does not show (module not loaded, kernel warning,
#     timeout, crash: run.sh's exit codes 121-125).

set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
export BUILD=${BUILD:-$repo/build}
export KVER=${KVER:-$("$repo/tools/kver.sh")}

passed=0
failed=0
skipped=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# count_tap FILE: adds FILE's results to passed/failed/skipped by the rule
# above and prints one "# check.sh: ..." line per extra failure it finds.
count_tap() {
	local counts
	counts=$(awk '
	function reset(d,   k) {
		for (k = d; k <= maxd + 1; k++) {
			plan[k] = -1; seen[k] = 0; nres[k] = 0; nfail[k] = 0
			closed[k] = 0
		}
	}
	BEGIN { maxd = 0; reset(0); p = f = s = 0 }
	{
		line = $0; d = 0
		while (substr(line, 1, 2) == "# ") { line = substr(line, 3); d++ }
		if (line == "#") next
		if (d + 1 > maxd) {
			for (k = maxd + 1; k <= d + 1; k++) {
				plan[k] = -1; seen[k] = 0; nres[k] = 0; nfail[k] = 0
				closed[k] = 0
			}
			maxd = d + 1
		}
		if (line ~ /^1\.\.[0-9]+/) {
			n = substr(line, 4) + 0
			if (plan[d] < 0 && nres[d] > 0) {
				# a plan after results closes its stream (a
				# trailing plan): what it promised and did not
				# come is missing; the next result at this
				# level starts a new stream (several programs
				# in one output, as "make run" of selftests/unit)
				if (n > seen[d]) {
					printf "# check.sh: %d result(s) missing before: %s\n", n - seen[d], line
					f += n - seen[d]
				}
				plan[d] = n; seen[d] = n; closed[d] = 1
			} else {
				# before any result, a plan opens a new stream
				reset(d)
				plan[d] = n
			}
			next
		}
		if (line !~ /^(not )?ok([ \t]|$)/)
			next
		if (closed[d])
			reset(d)
		ok = (line !~ /^not ok/)
		skip = (line ~ /#[ \t]*[Ss][Kk][Ii][Pp]/)
		c = d + 1
		if (nres[c] > 0 || plan[c] >= 0) {
			# summary of a nested stream
			missing = (plan[c] > seen[c]) ? plan[c] - seen[c] : 0
			if (missing > 0) {
				printf "# check.sh: %d result(s) missing before: %s\n", missing, line
				f += missing
			}
			if (!ok && nfail[c] == 0 && missing == 0) {
				printf "# check.sh: failure without a failed test: %s\n", line
				f++
			}
			bad = (!ok || nfail[c] > 0 || missing > 0)
			reset(c)
		} else {
			if (skip && ok) s++
			else if (ok) p++
			else f++
			bad = !ok
		}
		seen[d]++; nres[d]++
		if (bad) nfail[d]++
	}
	END {
		# streams left open: the output ended inside them
		for (k = 0; k <= maxd; k++) {
			if (plan[k] > seen[k]) {
				printf "# check.sh: %d result(s) missing at nesting level %d (output ended early)\n", plan[k] - seen[k], k
				f += plan[k] - seen[k]
			}
		}
		printf "COUNTS %d %d %d\n", p, f, s
	}' "$1")
	printf '%s\n' "$counts" | grep -v '^COUNTS '
	set -- $(printf '%s\n' "$counts" | sed -n 's/^COUNTS //p')
	passed=$((passed + $1))
	failed=$((failed + $2))
	skipped=$((skipped + $3))
	last_failed=$2
	last_total=$(($1 + $2 + $3))
}

step_fail() {
	echo "# check.sh: FAILED: $*"
	failed=$((failed + 1))
}

# 1. Userspace unit tests (another engineer's suite).
if [ "${BLOOM_CHECK_UNIT:-1}" = 0 ]; then
	echo "# check.sh: unit tests skipped (BLOOM_CHECK_UNIT=0)"
elif echo "# check.sh: make -C selftests/unit run" && [ -f "$here/unit/Makefile" ]; then
	make -C "$here/unit" run 2>&1 | tee "$work/unit.tap"
	rc=${PIPESTATUS[0]}
	count_tap "$work/unit.tap"
	if [ "$rc" -ne 0 ] && [ "$last_failed" -eq 0 ]; then
		step_fail "unit tests: make exited with status $rc"
	elif [ "$last_total" -eq 0 ]; then
		step_fail "unit tests: no TAP results"
	fi
else
	step_fail "unit tests: selftests/unit/Makefile is missing"
fi

# 1b. A short libFuzzer round on the filter core (ASan+UBSan): one TAP
# result, "ok 1 - libFuzzer core ... (execs, seconds)"; the fuzzer's own
# output comes as "# " comments, which the counting ignores.
# Userspace only, like step 1: BLOOM_CHECK_UNIT=0 skips it too.
if [ "${BLOOM_CHECK_UNIT:-1}" = 0 ]; then
	echo "# check.sh: libFuzzer round skipped (BLOOM_CHECK_UNIT=0)"
elif echo "# check.sh: make -C tools/fuzz check" &&
	[ -f "$repo/tools/fuzz/Makefile" ]; then
	make -s -C "$repo/tools/fuzz" check 2>&1 | tee "$work/fuzz.tap"
	rc=${PIPESTATUS[0]}
	count_tap "$work/fuzz.tap"
	if [ "$last_total" -eq 0 ]; then
		step_fail "libFuzzer: no TAP result (make -C tools/fuzz check exited with status $rc)"
	fi
else
	step_fail "libFuzzer: tools/fuzz/Makefile is missing"
fi

# 2. The kselftest programs.
echo "# check.sh: make -C selftests"
if ! make -C "$here" 2>&1; then
	step_fail "kselftests did not build (make -C selftests)"
fi

# host_tap TEST NAME: a TAP test run on the host (selftests/TEST), its
# output kept in $work/NAME.tap and counted.
host_tap() {
	echo "# check.sh: selftests/$1"
	if [ -x "$here/$1" ]; then
		"$here/$1" 2>&1 | tee "$work/$2.tap"
		count_tap "$work/$2.tap"
		[ "$last_total" -gt 0 ] || step_fail "selftests/$1: no TAP results"
	else
		step_fail "selftests/$1 is missing"
	fi
}

# 2b. The VM harness itself: it reaches a current directory under the host's
# /tmp, which the guest's own tmpfs /tmp hides (selftests/vm/test_share.sh,
# one short VM boot without the module; TAP). The README's iptables recipe
# runs as it is in what "make vm" gives (run.sh --firewall;
# selftests/vm/test_readme.sh, one VM boot; TAP).
host_tap vm/test_share.sh share
host_tap vm/test_readme.sh readme

# 2c. Installing: make install/uninstall into a DESTDIR, a program built with
# pkg-config against it and run in the VM (selftests/install/test_install.sh,
# one VM boot; TAP). make check-install adds the DKMS build.
echo "# check.sh: selftests/install/test_install.sh"
if [ "${BLOOM_CHECK_INSTALL:-1}" = 0 ]; then
	echo "# check.sh: install test skipped (BLOOM_CHECK_INSTALL=0)"
elif [ -x "$here/install/test_install.sh" ]; then
	"$here/install/test_install.sh" 2>&1 | tee "$work/install.tap"
	count_tap "$work/install.tap"
	[ "$last_total" -gt 0 ] || step_fail "selftests/install/test_install.sh: no TAP results"
else
	step_fail "selftests/install/test_install.sh is missing"
fi

# 2d. The Debian packages that selftests/deb/test_deb.sh installs in the VM:
# "make deb" (52 s with its unit tests at load average 7) when debhelper,
# dh-dkms and lintian are there (tools/deps.sh deb); without them that test
# skips, saying so. A failed build or a lintian error is a failure.
echo "# check.sh: make deb"
rm -rf "$BUILD/deb"
if [ "${BLOOM_CHECK_UNIT:-1}" = 0 ]; then
	echo "# check.sh: make deb skipped (BLOOM_CHECK_UNIT=0): test_deb skips"
elif command -v dpkg-buildpackage >/dev/null && command -v dh_dkms >/dev/null &&
	command -v lintian >/dev/null; then
	# nocheck: debian/rules' test step is the unit tests of step 1
	if ! DEB_BUILD_OPTIONS=nocheck make -s -C "$repo" deb BUILD="$BUILD" >"$work/deb.log" 2>&1; then
		tail -n 30 "$work/deb.log"
		step_fail "make deb failed (the log's end above)"
	fi
else
	echo "# check.sh: make deb skipped: debhelper, dh-dkms or lintian missing (tools/deps.sh deb); test_deb skips"
fi

# 3. The kselftests in the VM. run_tests.sh prints TAP; run.sh's own
# diagnostics go to stderr and are shown, not parsed.
read -r -a vm_opts <<<"${BLOOM_VM_OPTS:-}"
read -r -a vm_cmd <<<"${BLOOM_VM_CMD:-selftests/run_tests.sh}"
# The bound of a hang, not the time it takes: the DKMS build of
# selftests/deb/test_deb.sh alone took over 15 minutes on a loaded host.
echo "# check.sh: selftests/vm/run.sh --timeout 7200 ${vm_opts[*]+"${vm_opts[*]} "}-- ${vm_cmd[*]}"
if [ -x "$here/vm/run.sh" ]; then
	(cd "$repo" && "$here/vm/run.sh" --timeout 7200 ${vm_opts[@]+"${vm_opts[@]}"} -- "${vm_cmd[@]}") \
		2>&1 | tee "$work/vm.tap"
	rc=${PIPESTATUS[0]}
	count_tap "$work/vm.tap"
	if ! grep -q '^1\.\.[0-9]' "$work/vm.tap"; then
		step_fail "VM: run_tests.sh produced no TAP (exit status $rc)"
	elif [ "$rc" -ne 0 ] && ! { [ "$rc" -eq 1 ] && [ "$last_failed" -gt 0 ]; }; then
		case $rc in
		121) why="bloom.ko could not be loaded" ;;
		122) why="rmmod failed" ;;
		123) why="kernel warnings in dmesg" ;;
		124) why="timeout" ;;
		125) why="the VM crashed, panicked or never reported" ;;
		*) why="exit status $rc" ;;
		esac
		step_fail "VM run: $why (run.sh exit status $rc)"
	fi
else
	step_fail "VM harness selftests/vm/run.sh is missing"
fi

if [ "$passed" -eq 0 ] && [ "$failed" -eq 0 ]; then
	step_fail "no test ran"
fi

summary="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && summary="$summary, $skipped skipped"
echo "$summary"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
