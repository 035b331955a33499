#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP 13 test: a rootless container. An unprivileged user (nobody) makes a
# user and network namespace of its own (unshare -Urn, which needs no
# privilege) and, as root there, creates, fills, queries and destroys its
# own filters and puts a firewall rule on one; it sees only its namespace's
# filters and can change none of the initial namespace's. The device node
# is given to nobody's group for the test, as a udev rule gives it to a
# group (Documentation/bloom.rst, Security model).
# Runs as root in the VM with bloom.ko loaded; loads the netfilter modules
# and xt_bloom.ko if they are not, and unloads xt_bloom.ko if it loaded it:
#   selftests/vm/run.sh -- selftests/net/test_rootless.sh
# The VM's root is a real root, not a chroot (selftests/vm/run.sh), so user
# namespaces work there as on a host.

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$repo/build}
. "$here/lib.sh"

P=rl$$
NOBODY=65534
XTMOD=${XT_BLOOM_KO:-$repo/xt_bloom.ko}
sysdir=$(pkg-config --variable=xtlibdir xtables 2>/dev/null)
export XTABLES_LIBDIR=$BUILD/xt:${sysdir:-/usr/lib/x86_64-linux-gnu/xtables}
dev_owner=$(stat -c '%u:%g' /dev/bloom)
dev_mode=$(stat -c '%a' /dev/bloom)
loaded_xt=0

cleanup() {
	chown "$dev_owner" /dev/bloom
	chmod "$dev_mode" /dev/bloom
	for f in $(bloomctl list -n 2>/dev/null | grep "^$P"); do
		bloomctl destroy "$f" >/dev/null 2>&1
	done
	# the containers' namespaces went with their processes; their rules'
	# references go with the namespaces' tables, a moment later
	[ $loaded_xt = 0 ] || wait_for 30 rmmod xt_bloom
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

as_nobody() { setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$@"; }
# container SCRIPT: sh -c SCRIPT as root of nobody's own user and network
# namespace
container() { as_nobody unshare -Urn sh -c "$1"; }

run unshare -Ur true
check "unshare -Ur works as root in the VM" [ "$rc" = 0 ]
run as_nobody unshare -Ur true
check "and as nobody" [ "$rc" = 0 ]

mem0=$(settled $SYS/memory_used)
live0=$(settled $DBG/live_allocations)
chgrp $NOBODY /dev/bloom && chmod 0660 /dev/bloom
bloomctl create ${P}host --capacity 1000 --fpp 0.01 >/dev/null &&
	bloomctl add ${P}host --ipv4 192.0.2.1 >/dev/null
check "root creates ${P}host in the initial namespace" [ $? = 0 ]

# --- its own filters -------------------------------------------------------
run container "id -u && bloomctl create ${P}c --capacity 1000 --fpp 0.01 &&
	bloomctl add ${P}c --ipv4 198.51.100.7 &&
	bloomctl test ${P}c --ipv4 198.51.100.7 && bloomctl list -n &&
	bloomctl destroy ${P}c && bloomctl list -n | wc -l"
check "nobody, root of its own user and network namespace, creates, adds, queries, lists and destroys a filter" \
	eval '[ "$rc" = 0 ] && [ "$(head -n1 "$W/out")" = 0 ] &&
	      grep -qx "${P}c" "$W/out" && [ "$(tail -n1 "$W/out")" = 0 ]'
check "and the filter was not in the initial namespace" [ ! -e $SYS/filters/${P}c ]
run container "bloomctl create ${P}c --capacity 1000 --fpp 0.01 &&
	cat $SYS/memory_guaranteed && bloomctl destroy ${P}c"
check "a namespace nobody made gets no guarantee of the pool (min_memory_per_netns is for the host's root)" \
	eval '[ "$rc" = 0 ] && [ "$(cat "$W/out")" = 0 ]'
run container "bloomctl list -n"
check "the container sees none of the initial namespace's filters" \
	eval '[ "$rc" = 0 ] && ! grep -q "${P}host" "$W/out"'
run container "bloomctl test ${P}host --ipv4 192.0.2.1"
check "nor can it name one" eval '[ "$rc" != 0 ] && grep -q "no filter named" "$W/err"'
run container "bloomctl destroy ${P}host"
check "or destroy one" eval '[ "$rc" != 0 ] && grep -q "no filter named" "$W/err"'

# --- the initial namespace's filters are out of reach ----------------------
run as_nobody unshare -Ur bloomctl destroy ${P}host
check "root of a user namespace alone (the initial network namespace) cannot destroy: CAP_NET_ADMIN" \
	eval '[ "$rc" != 0 ] && grep -q "CAP_NET_ADMIN" "$W/err"'
run as_nobody unshare -Ur bloomctl add ${P}host --ipv4 203.0.113.9
check "nor add" eval '[ "$rc" != 0 ] && grep -q "CAP_NET_ADMIN" "$W/err"'
run as_nobody unshare -Ur bloomctl create ${P}x --capacity 10 --fpp 0.01
check "nor create" eval '[ "$rc" != 0 ] && [ ! -e $SYS/filters/${P}x ]'
run as_nobody bloomctl flush ${P}host
check "nobody without a namespace cannot flush: CAP_NET_ADMIN" \
	eval '[ "$rc" != 0 ] && grep -q "CAP_NET_ADMIN" "$W/err"'
run bloomctl test ${P}host --ipv4 192.0.2.1
check "the initial namespace's filter still holds its key" [ "$rc" = 0 ]
check "and took no other" \
	[ "$(cat $SYS/filters/${P}host/count)" = 1 ]

# --- a firewall rule on its own filter -------------------------------------
modprobe -a nf_tables nft_compat x_tables ip_tables iptable_filter 2>/dev/null
if ! grep -q '^xt_bloom ' /proc/modules && insmod "$XTMOD" 2>/dev/null; then
	loaded_xt=1
fi
if grep -q '^xt_bloom ' /proc/modules && command -v iptables-nft >/dev/null &&
	[ -e "$BUILD/xt/libxt_bloom.so" ]; then
	# 127.0.0.2 is listed, 127.0.0.1 is not: pings from the first are
	# dropped, from the second answered; the rule counts both
	run container "ip link set lo up &&
	bloomctl create ${P}fw --type blocked --capacity 100 --fpp 0.01 &&
	bloomctl add ${P}fw --ipv4 127.0.0.2 &&
	iptables-nft -A INPUT -m bloom --bloom-set ${P}fw --bloom-dir src -j DROP &&
	iptables-nft -S INPUT | grep -c 'bloom-set ${P}fw' &&
	! ping -q -c1 -W1 -I 127.0.0.2 127.0.0.1 >/dev/null &&
	ping -q -c1 -W2 -I 127.0.0.1 127.0.0.1 >/dev/null &&
	echo json: \$(bloomctl info --json ${P}fw) &&
	{ bloomctl destroy ${P}fw 2>&1; true; } &&
	iptables-nft -F INPUT && bloomctl destroy ${P}fw && echo done"
	sed -n 's/^json: //p' "$W/out" >"$W/json.c"
	check "the container puts an iptables rule on its own filter; listed sources are dropped" \
		eval '[ "$rc" = 0 ] && [ "$(head -n1 "$W/out")" = 1 ] && grep -qx done "$W/out"'
	check "the rule counted the container's packets" \
		eval '[ "$(json_field "$W/json.c" rules)" = 1 ] &&
		      [ "$(json_field "$W/json.c" packets)" -ge 2 ]'
	check "destroy of the filter the rule uses: EBUSY, until the rule is gone" \
		grep -q "firewall rule" "$W/out"
	run container "iptables-nft -A INPUT -m bloom --bloom-set ${P}host -j DROP"
	check "a rule in the container cannot name the initial namespace's filter" \
		eval '[ "$rc" != 0 ] && grep -q "no filter named" "$W/err"'
else
	n=$((n + 1))
	echo "ok $n - the container puts an iptables rule on its own filter # SKIP no xt_bloom.ko or iptables-nft"
fi

bloomctl destroy ${P}host >/dev/null
# The container's namespaces go in the kernel's own time (test_netns.sh).
check "after the test: memory_used back to where it was" \
	wait_for 300 file_is $SYS/memory_used "$mem0"
check "and live_allocations" \
	wait_for 300 file_is $DBG/live_allocations "$live0"

finish
