#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# run.sh [--tap | --tap-number N] FUZZER SECONDS: runs the libFuzzer binary
# for SECONDS on its corpus (corpus-NAME next to it, plus the seeds in
# seeds-NAME when there are, which it reads but never writes), one worker (the
# machines are shared), and reports executions and coverage. With --tap the
# fuzzer's own output is printed as "# " comments and the run ends with a
# TAP plan and one result line, for check.sh; --tap-number N prints result
# N without a plan (the caller prints the plan).
set -u

tap=0
num=1
plan=1
if [ "${1:-}" = --tap ]; then
	tap=1
	shift
elif [ "${1:-}" = --tap-number ]; then
	tap=1
	num=$2
	plan=0
	shift 2
fi
fuzzer=$1
seconds=$2
dir=$(dirname "$fuzzer")
name=$(basename "$fuzzer")
corpus=$dir/corpus-$name
log=$dir/$name.log
mkdir -p "$corpus"

# -max_total_time bounds the run; -timeout flags one slow input (a hang);
# -artifact_prefix keeps crash inputs out of the source tree.
set -- "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 \
	-print_final_stats=1 -artifact_prefix="$dir/$name-" "$corpus"
[ -d "$dir/seeds-$name" ] && set -- "$@" "$dir/seeds-$name"
start=$(date +%s)
if [ "$tap" = 1 ]; then
	[ "$plan" = 1 ] && echo "1..1"
	"$@" >"$log" 2>&1
	rc=$?
	sed 's/^/# /' "$log"
else
	"$@" 2>&1 | tee "$log"
	rc=$?
fi
secs=$(($(date +%s) - start))

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
ft=$(grep -o 'ft: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
corpus_n=$(find "$corpus" -type f | wc -l)
what="libFuzzer $name (ASan+UBSan): ${execs:-?} execs in $secs s, cov ${cov:-?} edges, ft ${ft:-?}, corpus $corpus_n"
if [ "$rc" = 0 ] && [ -n "$execs" ]; then
	[ "$tap" = 1 ] && echo "ok $num - $what" || echo "fuzz: $what"
	exit 0
fi
if [ "$tap" = 1 ]; then
	echo "not ok $num - $what (exit status $rc; crash input in $dir/)"
else
	echo "fuzz: FAILED (exit status $rc): $what; crash input in $dir/"
fi
exit 1
