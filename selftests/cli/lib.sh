# SPDX-License-Identifier: GPL-2.0
# Helpers of the bloomctl CLI tests (sourced; POSIX sh). The sourcing
# script sets LIMIT (seconds per command), W (a directory for the output
# files), SYS (the device's sysfs directory) and P (the prefix of the
# names of the filters it makes); check, ok and not_ok come from ../tap.sh.

# destroy_ours: destroys every filter whose name starts with $P.
destroy_ours() {
	for f in $(timeout 30 bloomctl list -n 2>/dev/null | grep "^$P"); do
		timeout 30 bloomctl destroy "$f" >/dev/null 2>&1
	done
}

# cli_begin PREFIX [SECONDS]: what every CLI test starts with: P (PREFIX
# and the shell's pid: the names of its filters), LIMIT (SECONDS per
# command, 120 if not given; BLOOMCTL_TEST_TIMEOUT overrides either), SYS,
# W and the counts of tap.sh; the TAP header; cli_end at exit; bails out
# unless the device is there (require_device). A test that has more to
# undo at exit sets its own EXIT trap afterwards and calls cli_end from it.
cli_begin() {
	P=$1$$
	LIMIT=${BLOOMCTL_TEST_TIMEOUT:-${2:-120}}
	SYS=/sys/class/misc/bloom
	W=$(mktemp -d) || exit 1
	n=0
	failed=0
	echo "TAP version 13"
	trap cli_end EXIT
	trap 'exit 130' INT TERM
	require_device
}

# cli_end: destroys the test's filters and removes W.
cli_end() {
	destroy_ours
	rm -rf "$W"
}

# require_device: bails out unless this is root with the module loaded and
# bloomctl on PATH.
require_device() {
	[ -c /dev/bloom ] || { echo "Bail out! /dev/bloom missing: load bloom.ko first"; exit 1; }
	[ "$(id -u)" = 0 ] || { echo "Bail out! must run as root"; exit 1; }
	command -v bloomctl >/dev/null || { echo "Bail out! bloomctl not on PATH"; exit 1; }
}

# run ARGS...: bloomctl ARGS, bounded in time, output in $W/out, $W/err.
run() {
	timeout "$LIMIT" bloomctl "$@" >"$W/out" 2>"$W/err"
	rc=$?
}

# runin FILE ARGS...: the same, with FILE on standard input.
runin() {
	f=$1
	shift
	timeout "$LIMIT" bloomctl "$@" <"$f" >"$W/out" 2>"$W/err"
	rc=$?
}

# expect DESC STATUS ARGS...: bloomctl ARGS exits with STATUS.
expect() {
	desc=$1 want=$2
	shift 2
	run "$@"
	if [ "$rc" = "$want" ]; then ok "$desc"; else not_ok "$desc (want exit $want)"; fi
}

# expect_err DESC STATUS REGEX ARGS...: exits with STATUS, stdout empty and
# exactly one line on stderr, starting "bloomctl: " and matching REGEX.
expect_err() {
	desc=$1 want=$2 re=$3
	shift 3
	run "$@"
	if [ "$rc" = "$want" ] && [ ! -s "$W/out" ] &&
	   [ "$(wc -l <"$W/err")" -eq 1 ] &&
	   grep -q '^bloomctl: ' "$W/err" && grep -Eq -- "$re" "$W/err"; then
		ok "$desc"
	else
		not_ok "$desc (want exit $want, one line matching /$re/)"
	fi
}

sysval() { cat "$SYS/filters/$1/$2" 2>/dev/null; }
# stageval NAME FIELD I: stage I's number in the file stage_FIELD
stageval() { sysval "$1" "stage_$2" | awk -v i="$3" '{ print $(i + 1) }'; }
