#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/vm/test_readme.sh: run on the HOST (make check runs it). The
# README's iptables recipe (the indented lines under "Firewall: iptables -m
# bloom") runs as it is in the VM that "make vm" gives, run.sh --firewall:
# one VM boot, every line in a network namespace of its own, with a
# feed.txt in the current directory. Prints TAP.

set -u
here=$(cd "$(dirname "$0")" && pwd)
readme=$here/../../README

# the recipe: the indented block right after the heading
recipe=$(awk '/^Firewall: iptables -m bloom$/ { on = 1; next }
	on && /^    [a-z]/ { sub(/^    /, ""); print; seen = 1; next }
	on && seen && !/^$/ { exit }' "$readme")
lines=$(printf '%s\n' "$recipe" | grep -c .)
echo "1..$((lines + 1))"
if [ "$lines" -lt 3 ]; then
	echo "not ok 1 the README's iptables recipe found ($lines lines)"
	exit 1
fi
echo "ok 1 the README's iptables recipe found ($lines lines)"

dir=$(mktemp -d "${TMPDIR:-/tmp}/bloom-readme.XXXXXX")
trap 'rm -rf "$dir"' EXIT
printf '%s\n' "$recipe" >"$dir/recipe"
printf '203.0.113.0/24\n198.51.100.7\n' >"$dir/feed.txt"
# each line's status as "N STATUS", in a namespace that takes the filters
# and the rules away with it
out=$(cd "$dir" && timeout 900 "$here/run.sh" --firewall --timeout 840 -- bash -c '
	ip netns add readme || exit 1
	i=1
	while IFS= read -r line; do
		ip netns exec readme sh -c "$line" >line.out 2>&1
		echo "$i $? $(tr "\n" " " <line.out)"
		i=$((i + 1))
	done <recipe
	ip netns del readme' 2>&1)
rc=$?
i=1
fails=0
while IFS= read -r line; do
	got=$(printf '%s\n' "$out" | sed -n "s/^$i //p")
	if [ "${got%% *}" = 0 ]; then
		echo "ok $((i + 1)) in make vm: $line"
	else
		echo "not ok $((i + 1)) in make vm: $line # ${got:-no result (run.sh exit $rc)}"
		fails=$((fails + 1))
	fi
	i=$((i + 1))
done <"$dir/recipe"
[ $rc = 0 ] || printf '%s\n' "$out" | sed 's/^/# /' | tail -n 20
[ $rc = 0 ] && [ $fails = 0 ]
