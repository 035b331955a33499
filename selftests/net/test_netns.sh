#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP 13 test: filters belong to network namespaces. Same names in two
# namespaces, sysfs per namespace, a descriptor keeps its opener's
# namespace, root of a user namespace manages its own namespace's filters,
# the memory limit is shared, and deleting a namespace frees its filters.
# Runs as root in the VM with bloom.ko loaded:
#   selftests/vm/run.sh -- selftests/net/test_netns.sh

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

P=nstest$$
NSA=${P}a NSB=${P}b NSC=${P}c
NSD="${P}d1 ${P}d2 ${P}d3 ${P}d4"
BLOOMCTL=$(command -v bloomctl)
maxmem=$(cat /sys/module/bloom/parameters/max_memory)
maxmem_ns=$(cat /sys/module/bloom/parameters/max_memory_per_netns)
minmem_ns=$(cat /sys/module/bloom/parameters/min_memory_per_netns)

cleanup() {
	[ -n "${fillers-}" ] && kill $fillers 2>/dev/null
	[ -n "${devmode-}" ] && chmod "$devmode" /dev/bloom
	echo "$maxmem" >/sys/module/bloom/parameters/max_memory
	echo "$maxmem_ns" >/sys/module/bloom/parameters/max_memory_per_netns
	echo "$minmem_ns" >/sys/module/bloom/parameters/min_memory_per_netns
	for ns in "" "$NSA" "$NSB" "$NSC" $NSD "${P}r"; do
		ex=${ns:+ip netns exec $ns}
		for f in $($ex bloomctl list -n 2>/dev/null | grep "^$P"); do
			$ex bloomctl destroy "$f" >/dev/null 2>&1
		done
		[ -n "$ns" ] && ip netns del "$ns" 2>/dev/null
	done
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

in_a() { timeout "$LIMIT" ip netns exec "$NSA" "$@"; }
in_b() { timeout "$LIMIT" ip netns exec "$NSB" "$@"; }

live0=$(settled $DBG/live_allocations)
mem0=$(settled $SYS/memory_used)

ip netns add "$NSA" && ip netns add "$NSB" ||
	{ echo "Bail out! ip netns add failed"; exit 1; }

# --- the same name in three namespaces -------------------------------------
run bloomctl create ${P}f --capacity 1000 --fpp 0.01
check "create ${P}f in the initial namespace" [ "$rc" = 0 ]
run in_a bloomctl create ${P}f --capacity 2000 --fpp 0.01
check "create ${P}f in namespace a too" [ "$rc" = 0 ]
run in_b bloomctl create ${P}f --type blocked --capacity 3000 --fpp 0.001
check "create ${P}f in namespace b too" [ "$rc" = 0 ]
run in_a bloomctl create ${P}f --capacity 10 --fpp 0.01
check "a second ${P}f in namespace a: EEXIST" eval '[ "$rc" != 0 ] && grep -q "exists already" "$W/err"'

check "sysfs of the initial namespace shows its own ${P}f" \
	[ "$(cat $SYS/filters/${P}f/capacity)" = 1000 ]
check "sysfs in namespace a shows a's ${P}f" \
	[ "$(in_a cat $SYS/filters/${P}f/capacity)" = 2000 ]
check "sysfs in namespace b shows b's ${P}f" \
	[ "$(in_b cat $SYS/filters/${P}f/type)" = blocked ]

in_a bloomctl create ${P}only_a --capacity 100 --fpp 0.01 >/dev/null 2>&1
check "list in namespace a shows a's filters only" \
	[ "$(in_a bloomctl list -n | grep "^$P" | tr '\n' ' ')" = "${P}f ${P}only_a " ]
check "list in the initial namespace does not show a's filters" \
	[ "$(bloomctl list -n | grep "^$P" | tr '\n' ' ')" = "${P}f " ]
check "sysfs in the initial namespace has no ${P}only_a" \
	[ ! -e $SYS/filters/${P}only_a ]
run bloomctl info ${P}only_a
check "info of a's filter from the initial namespace: no such filter" \
	eval '[ "$rc" != 0 ] && grep -q "no filter named" "$W/err"'

# keys stay in their namespace's filter
in_a bloomctl add ${P}f --ipv4 192.0.2.1 >/dev/null 2>&1
run in_a bloomctl test ${P}f --ipv4 192.0.2.1
check "a key added in a is found in a" [ "$rc" = 0 ]
run bloomctl test ${P}f --ipv4 192.0.2.1
check "and not in the initial namespace's filter of that name" [ "$rc" = 1 ]

run bloomctl destroy ${P}f
check "destroy in the initial namespace" [ "$rc" = 0 ]
check "leaves a's filter of that name" \
	[ "$(in_a cat $SYS/filters/${P}f/capacity)" = 2000 ]
run in_a bloomctl test ${P}f --ipv4 192.0.2.1
check "and its keys" [ "$rc" = 0 ]

# --- a descriptor acts in the namespace it was opened in -------------------
# Opened in the initial namespace, then the process moves to namespace a:
# the old descriptor still lists the initial namespace's filters, a new one
# a's. Only the initial namespace has ${P}init.
bloomctl create ${P}init --capacity 10 --fpp 0.01 >/dev/null
run python3 - "/run/netns/$NSA" "$P" <<'PY'
import ctypes, fcntl, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
BLOOM_IOC_LIST = (0xBF << 8) | 0x05

def names(fd):
    buf = ctypes.create_string_buffer(32 * 256)
    req = bytearray(struct.pack("=IIIIQQ", 32, 0, 256, 0, ctypes.addressof(buf), 0))
    fcntl.ioctl(fd, BLOOM_IOC_LIST, req)
    n = struct.unpack_from("=I", req, 12)[0]
    raw = buf.raw
    out = [raw[i * 32:(i + 1) * 32].split(b"\0")[0].decode() for i in range(min(n, 256))]
    return " ".join(x for x in out if x.startswith(sys.argv[2]))

old = os.open("/dev/bloom", os.O_RDWR)
ns = os.open(sys.argv[1], os.O_RDONLY)
if libc.setns(ns, 0x40000000) != 0:
    sys.exit("setns: %s" % os.strerror(ctypes.get_errno()))
new = os.open("/dev/bloom", os.O_RDWR)
print("old:", names(old))
print("new:", names(new))
PY
check "a descriptor opened before setns() still lists its opener's namespace" \
	grep -qx "old: ${P}init" "$W/out"
check "a descriptor opened after setns() lists the new namespace's filters" \
	grep -qx "new: ${P}f ${P}only_a" "$W/out"
bloomctl destroy ${P}init >/dev/null

# --- root of a user namespace ----------------------------------------------
# (the VM's root is a real root, not a chroot: unshare -U works there;
# test_rootless.sh does the same as an unprivileged user)
userns_sh() {	# userns_sh [-n] SCRIPT
	if [ "$1" = -n ]; then
		shift
		timeout "$LIMIT" unshare -Urn sh -c "$1"
	else
		timeout "$LIMIT" unshare -Ur sh -c "$1"
	fi
}
run userns_sh -n "id -u; $BLOOMCTL create ${P}u --capacity 100 --fpp 0.01 && \
	$BLOOMCTL add ${P}u --ipv4 198.51.100.7 && \
	$BLOOMCTL test ${P}u --ipv4 198.51.100.7 && $BLOOMCTL list -n && \
	$BLOOMCTL destroy ${P}u"
check "root of a new user namespace creates, adds, queries, lists and destroys in its own network namespace" \
	eval '[ "$rc" = 0 ] && [ "$(head -n1 "$W/out")" = 0 ] && grep -qx "${P}u" "$W/out"'
run userns_sh -n "$BLOOMCTL list -n"
check "and sees no other namespace's filters" eval '[ "$rc" = 0 ] && [ ! -s "$W/out" ]'
run userns_sh "$BLOOMCTL create ${P}v --capacity 100 --fpp 0.01"
check "root of a user namespace without its own network namespace: EPERM in the initial one" \
	eval '[ "$rc" != 0 ] && grep -q "CAP_NET_ADMIN" "$W/err"'
check "and nothing was created" [ ! -e $SYS/filters/${P}v ]

# --- memory: each namespace its quota, the initial one its reserve --------
# (module/account.h: max_memory for all, max_memory_per_netns for each
# namespace but the initial one, which keeps min(that, max_memory / 2))
PARAMS=/sys/module/bloom/parameters
echo 3000000 >$PARAMS/max_memory_per_netns
run in_a bloomctl create ${P}m --capacity 1500000 --fpp 0.01
check "a 1.8 MB filter in a fits in a 3 MB quota" [ "$rc" = 0 ]
run in_a bloomctl create ${P}m2 --capacity 1500000 --fpp 0.01
check "a second one in a does not: EDQUOT" \
	eval '[ "$rc" != 0 ] && grep -q "memory limit" "$W/err"'
run in_b bloomctl create ${P}m --capacity 1500000 --fpp 0.01
check "one in b fits: b has a quota of its own" [ "$rc" = 0 ]
used_a=$(in_a cat $SYS/memory_used)
check "namespace a sees its own memory_used, not the module's" \
	[ "$used_a" -gt 1800000 ] && [ "$used_a" -le 3000000 ] &&
	[ "$used_a" -lt "$(cat $SYS/memory_used)" ]
in_a bloomctl destroy ${P}m >/dev/null
in_b bloomctl destroy ${P}m >/dev/null

used=$(cat $SYS/memory_used)
echo $((used + 4000000)) >$PARAMS/max_memory
echo 2000000 >$PARAMS/max_memory_per_netns
run in_a bloomctl create ${P}m --capacity 1500000 --fpp 0.01
check "with 4 MB left and 2 MB reserved for the initial namespace, 1.8 MB in a fit" \
	[ "$rc" = 0 ]
run in_b bloomctl create ${P}m --capacity 1500000 --fpp 0.01
check "1.8 MB more in b do not, though b's quota and max_memory have room: EDQUOT" \
	eval '[ "$rc" != 0 ] && grep -q "memory limit" "$W/err"'
run bloomctl create ${P}m --capacity 1500000 --fpp 0.01
check "the initial namespace still gets its 1.8 MB" [ "$rc" = 0 ]
run bloomctl create ${P}m2 --capacity 1500000 --fpp 0.01
check "and the module-wide limit still holds: EDQUOT" \
	eval '[ "$rc" != 0 ] && grep -q "memory limit" "$W/err"'
bloomctl destroy ${P}m >/dev/null
in_a bloomctl destroy ${P}m >/dev/null
echo "$maxmem" >$PARAMS/max_memory
echo "$maxmem_ns" >$PARAMS/max_memory_per_netns

# --- guarantees: a namespace the host's root made keeps its grant ----------
# (module/account.h: min_memory_per_netns of the pool is granted to such a
# namespace at its first reservation; what it is shown is what it can get)
Mi=1048576
in_d() { local ns=$1; shift; timeout "$LIMIT" ip netns exec "${P}$ns" "$@"; }
for ns in $NSD; do ip netns add "$ns"; done
# a and b keep the grants they got above: 0 takes back what they do not use
echo 0 >$PARAMS/min_memory_per_netns
base=$(cat $SYS/memory_used)
echo $((base + 64 * Mi)) >$PARAMS/max_memory
echo $((16 * Mi)) >$PARAMS/max_memory_per_netns
echo $((16 * Mi)) >$PARAMS/min_memory_per_netns
for d in d1 d2 d3; do
	in_d $d bloomctl create ${P}g --capacity 100 --fpp 0.01 >/dev/null
done
check "a namespace's first filter gets it its 16 MiB guarantee" \
	[ "$(in_d d1 cat $SYS/memory_guaranteed)" = $((16 * Mi)) ]
check "one that has made no filter yet has none" \
	[ "$(in_d d4 cat $SYS/memory_guaranteed)" = 0 ]
lim4=$(in_d d4 cat $SYS/memory_limit)
check "three guarantees fill the 48 MiB pool: the fourth namespace is shown under 1 MiB" \
	[ "$lim4" -lt "$Mi" ]
run in_d d4 bloomctl create ${P}g --memory 4Mi --fpp 0.01
check "and that is what it gets: EDQUOT for 4 MiB" \
	eval '[ "$rc" != 0 ] && grep -q "memory limit" "$W/err"'
run in_d d1 bloomctl create ${P}big --memory 15Mi --fpp 0.01
check "each of the three fills its guarantee, whoever asked before (d1 15 MiB)" [ "$rc" = 0 ]
run in_d d2 bloomctl create ${P}big --memory 15Mi --fpp 0.01
check "d2 15 MiB" [ "$rc" = 0 ]
run bloomctl create ${P}big --memory 15Mi --fpp 0.01
check "the initial namespace keeps its own 16 MiB" [ "$rc" = 0 ]
run bloomctl create ${P}big2 --memory 2Mi --fpp 0.01
check "but cannot take what d3 was granted and does not use: EDQUOT" \
	eval '[ "$rc" != 0 ] && grep -q "memory limit" "$W/err"'
lim0=$(cat $SYS/memory_limit)
used0=$(cat $SYS/memory_used)
check "the initial namespace is shown that: its limit less its use is under 2 MiB" \
	[ $((lim0 - used0)) -lt $((2 * Mi)) ] && [ $((lim0 - used0)) -ge 0 ]
run in_d d3 bloomctl create ${P}big --memory 15Mi --fpp 0.01
check "d3 gets its 15 MiB though every other byte of max_memory is taken" [ "$rc" = 0 ]
in_d d1 bloomctl destroy ${P}big >/dev/null
lim4=$(in_d d4 cat $SYS/memory_limit)
check "d1 freed 15 MiB but keeps its grant: d4 is still shown under 1 MiB" \
	[ "$lim4" -lt "$Mi" ]
ip netns del "${P}d1"
check "d1 gone, its grant is free: d4 is shown 16 MiB" \
	wait_for 300 eval '[ "$(in_d d4 cat $SYS/memory_limit)" = $((16 * Mi)) ]'
run in_d d4 bloomctl create ${P}g --memory 4Mi --fpp 0.01
check "and gets 4 MiB" [ "$rc" = 0 ]
for d in d2 d3 d4; do
	for f in $(in_d $d bloomctl list -n | grep "^$P"); do
		in_d $d bloomctl destroy "$f" >/dev/null
	done
	ip netns del "${P}$d"
done
bloomctl destroy ${P}big >/dev/null
echo "$maxmem" >$PARAMS/max_memory
echo "$maxmem_ns" >$PARAMS/max_memory_per_netns
echo "$minmem_ns" >$PARAMS/min_memory_per_netns

# --- a guarantee nobody can take first --------------------------------------
# A namespace root made (a container's) with no filter yet; then the
# namespaces of an unprivileged user (unshare -Urn, /dev/bloom writable by
# it) fill the pool with 1 MiB filters; then the container's first filter.
# The pool owes it its guarantee from its creation: the others take what
# nobody is owed, and its first filter gets the grant.
# d2..d4 hold their grants until the kernel has torn them down: wait.
check "the namespaces of the test above are gone (their grants back)" \
	wait_for 300 eval '[ "$(cat $SYS/memory_limit)" = "$(cat $PARAMS/max_memory)" ]'
ip netns add "${P}r"
base=$(cat $SYS/memory_used)
echo $((base + 96 * Mi)) >$PARAMS/max_memory
echo $((16 * Mi)) >$PARAMS/max_memory_per_netns
echo $((16 * Mi)) >$PARAMS/min_memory_per_netns
devmode=$(stat -c %a /dev/bloom)
chmod 0666 /dev/bloom
# fill I: an unprivileged user's namespace makes 1 MiB filters until one is
# refused, prints how many it made and keeps them (and itself) until killed
fill() {
	setpriv --reuid=65534 --regid=65534 --clear-groups unshare -Urn sh -c \
		'i=0; while [ $i -lt 16 ] && bloomctl create f$i --memory 1Mi --fpp 0.01 >/dev/null 2>&1; do i=$((i + 1)); done; echo $i; exec sleep 600' \
		>"$W/fill$1" 2>&1 &
	fillers="$fillers $!"
	wait_for 120 test -s "$W/fill$1"
}
fillers=
for i in 1 2 3 4 5; do fill $i; done
made=$(cat "$W"/fill[1-5] | tr '\n' ' ')
echo "# 1 MiB filters made in five unprivileged namespaces: $made"
check "the unprivileged namespaces filled what the pool has for them (the fifth made none; made: $made)" \
	eval '[ "$(cat $W/fill5)" = 0 ] && [ "$(cat $W/fill1)" -gt 0 ]'
run in_d r bloomctl create ${P}g --memory 15Mi --fpp 0.01
check "the container's first filter (15 MiB) is made after them" [ "$rc" = 0 ]
check "and its namespace is granted its 16 MiB" \
	[ "$(in_d r cat $SYS/memory_guaranteed)" = $((16 * Mi)) ]
kill $fillers 2>/dev/null
wait $fillers 2>/dev/null
fillers=
chmod "$devmode" /dev/bloom
devmode=
in_d r bloomctl destroy ${P}g >/dev/null
ip netns del "${P}r"
echo "$maxmem" >$PARAMS/max_memory
echo "$maxmem_ns" >$PARAMS/max_memory_per_netns
echo "$minmem_ns" >$PARAMS/min_memory_per_netns
check "the unprivileged namespaces' filters go with them" \
	wait_for 300 eval '[ "$(cat $SYS/memory_used)" -le "$base" ]'

# --- filters per namespace -------------------------------------------------
maxf=$(cat $PARAMS/max_filters_per_netns)
echo 3 >$PARAMS/max_filters_per_netns
in_b bloomctl create ${P}n1 --capacity 10 --fpp 0.01 >/dev/null
run in_b bloomctl create ${P}n2 --capacity 10 --fpp 0.01
check "b may hold max_filters_per_netns = 3 filters (${P}f, ${P}n1, ${P}n2)" [ "$rc" = 0 ]
run in_b bloomctl create ${P}n3 --capacity 10 --fpp 0.01
check "not 4: EMFILE" eval '[ "$rc" != 0 ] && grep -qi "too many filters" "$W/err"'
run bloomctl create ${P}n3 --capacity 10 --fpp 0.01
check "the initial namespace is not bound by it" [ "$rc" = 0 ]
bloomctl destroy ${P}n3 >/dev/null
echo "$maxf" >$PARAMS/max_filters_per_netns

# --- a namespace's filters go with it --------------------------------------
ip netns add "$NSC"
before=$(cat $SYS/memory_used)
run ip netns exec "$NSC" bloomctl create ${P}big --type blocked --capacity 4000000 --fpp 0.01
check "create a 4.8 MB filter in namespace c" [ "$rc" = 0 ]
during=$(cat $SYS/memory_used)
check "memory_used grew by its size" [ $((during - before)) -gt 4000000 ]
ip netns del "$NSC"
# The kernel tears a namespace down in a work item of its own: say what it
# is doing if that takes long.
wait_for 30 file_is $SYS/memory_used "$before" || teardown_diag "$before"
check "deleting namespace c frees its filter's memory (within 300 s)" \
	wait_for 270 file_is $SYS/memory_used "$before"

for ns in "$NSA" "$NSB"; do
	for f in $(ip netns exec "$ns" bloomctl list -n | grep "^$P"); do
		ip netns exec "$ns" bloomctl destroy "$f"
	done
done
ip netns del "$NSA"
ip netns del "$NSB"
# namespaces again: their teardown is the kernel's (above)
check "after the test: memory_used back to where it was" \
	wait_for 300 file_is $SYS/memory_used "$mem0"
check "and live_allocations" \
	wait_for 300 file_is $DBG/live_allocations "$live0"

finish
