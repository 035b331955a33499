# SPDX-License-Identifier: GPL-2.0
#
# The firewall benchmarks' machinery, sourced INSIDE the VM by fw_bench.sh
# and expire_bench.sh: two network namespaces joined by veth, fw_send's
# traffic from fwsnd (pinned to CPU 0) to fwrcv, whose raw table's
# PREROUTING holds the rule under test without a target (it only matches
# and counts) and a DROP that ends every packet's way, so every
# configuration does the same work but the match. iptables-legacy, so that
# the bloom and set matches run the same classic xtables path.
# shellcheck shell=bash

fw_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-$fw_top/build}
fw_send_bin=$BUILD/bench/fw-send
ipt=iptables-legacy
# fw_send's listed range starts here; its unlisted sources are 100.64.0.0/10
LISTED_BASE=16.0.0.0
PCT=10

in_rcv() { ip netns exec fwrcv "$@"; }

# fw_up [IPSET_MODULE...]: the modules, xt_bloom, the namespaces and veth.
fw_up() {
	XTABLES_LIBDIR=$BUILD/xt:$(pkg-config --variable=xtlibdir xtables 2>/dev/null ||
		echo /usr/lib/x86_64-linux-gnu/xtables)
	export XTABLES_LIBDIR
	modprobe -a veth x_tables ip_tables iptable_raw ip_set xt_set "$@" >&2
	grep -q '^xt_bloom ' /proc/modules || insmod "$fw_top/xt_bloom.ko"
	ip netns add fwsnd
	ip netns add fwrcv
	ip link add va netns fwsnd type veth peer name vb netns fwrcv
	ip -n fwsnd addr add 10.9.0.1/24 dev va
	ip -n fwrcv addr add 10.9.0.2/24 dev vb
	ip -n fwsnd link set va up
	ip -n fwrcv link set vb up
	ip -n fwsnd neigh add 10.9.0.2 lladdr "$(ip -n fwrcv -br link show vb | awk '{print $3}')" dev va
}

# fw_round NAME ROUND LISTED SECONDS RESULTS [MATCH...]: the rule with the
# match MATCH (none: the baseline), SECONDS of traffic from LISTED_PERCENT
# listed sources out of LISTED from LISTED_BASE; appends to RESULTS the line
# fw_rounds.py reads.
fw_round() {
	local name=$1 r=$2 count=$3 secs=$4 res=$5 out counts

	shift 5
	in_rcv $ipt -t raw -F PREROUTING
	[ $# = 0 ] || in_rcv $ipt -t raw -A PREROUTING -i vb "$@"
	in_rcv $ipt -t raw -A PREROUTING -i vb -j DROP
	out=$(ip netns exec fwsnd taskset -c 0 "$fw_send_bin" 10.9.0.2 "$secs" \
		$LISTED_BASE "$count" $PCT)
	counts=$(in_rcv $ipt -t raw -L PREROUTING -v -n -x | awk 'NR > 2 { printf "%s ", $1 }')
	echo "$name $r $out counts $counts" >>"$res"
	echo "$(basename "$0"): round $r $name: $out; rule packets: $counts" >&2
}

# fw_rounds_against_set ROUNDS LISTED SECONDS RESULTS SET FILTER...: ROUNDS
# rounds of fw_round, each taking its configurations in turn: no rule, each
# FILTER's bloom match, then SET's match (named "ipset" in RESULTS).
fw_rounds_against_set() {
	local rounds=$1 count=$2 secs=$3 res=$4 set=$5 r c

	shift 5
	for r in $(seq "$rounds"); do
		fw_round none "$r" "$count" "$secs" "$res"
		for c in "$@"; do
			fw_round "$c" "$r" "$count" "$secs" "$res" -m bloom --bloom-set "$c" --bloom-dir src
		done
		fw_round ipset "$r" "$count" "$secs" "$res" -m set --match-set "$set" src
	done
}

# memory_bytes NAME: what filter NAME takes (in fwrcv)
fw_bloom_memory() {
	in_rcv bloomctl info --json "$1" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["memory_bytes"])'
}

# fw_ipset_field SET FIELD: "Size in memory", "Number of entries", ...
fw_ipset_field() {
	in_rcv ipset list -t "$1" | sed -n "s/^$2: //p"
}

fw_down() {
	in_rcv $ipt -t raw -F PREROUTING
	ip netns del fwsnd
	ip netns del fwrcv
}
