# SPDX-License-Identifier: GPL-2.0
# TAP 13 results for the shell tests (sourced; POSIX sh): selftests/cli/ and
# selftests/net/. The sourcing script sets n=0, failed=0 and W (a directory
# whose out and err files hold the last command's output, and rc its exit
# status, for whoever reads a failure).

ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}

not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
	# What the last command said, for whoever reads the failure.
	[ -s "$W/out" ] && sed 's/^/# stdout: /' "$W/out" | head -n 10
	[ -s "$W/err" ] && sed 's/^/# stderr: /' "$W/err" | head -n 10
	[ -n "${rc-}" ] && echo "# exit status: $rc"
	return 0
}

# check DESC COMMAND...: ok if COMMAND succeeds.
check() {
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

# wait_for SECONDS CMD...: polls CMD every 0.1 s until it succeeds (its
# counters are named so that no caller's loop variable is touched).
wait_for() {
	_wf_i=0
	_wf_max=$(($1 * 10))
	shift
	while ! "$@" >/dev/null 2>&1; do
		_wf_i=$((_wf_i + 1))
		[ "$_wf_i" -ge "$_wf_max" ] && return 1
		sleep 0.1
	done
	return 0
}
