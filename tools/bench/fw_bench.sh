#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The firewall benchmark, run INSIDE the VM by run.sh ("fw" part):
#   fw_bench.sh DATA_DIR ROUNDS SECONDS > fw.json
# DATA_DIR/listed.txt holds the listed IPv4 addresses, one per line, a
# contiguous range from LISTED_BASE (written on the host by run.sh).
#
# Two network namespaces joined by veth (fw_lib.sh); fw_send (pinned to CPU 0) sends UDP
# packets from 10% listed and 90% unlisted sources for SECONDS; in the
# receiving namespace the raw table's PREROUTING holds, in this order, the
# rule under test without a target (it only matches and counts) and a DROP
# that ends every packet's way, so every configuration does the same work
# but the match. Configurations: no match rule (the baseline), a bloom rule
# on standard and blocked filters at p = 0.01 and 0.0001, and ipset hash:ip
# (-m set) holding the same addresses. Then feeds with netblocks: the same
# addresses plus DATA_DIR/netblocks_L.txt (netblocks of L lengths, none
# holding a source of the traffic: run.sh, fw_netblocks.py), in a blocked
# filter sized for p = 0.0001 per address (p / (L + 1) per test: an address
# meets L + 1 tests) and in ipset hash:net. Rounds interleave the
# configurations; each configuration's figure is the median of its rounds.
# iptables-legacy, so that both matches run the same classic xtables path.
set -euo pipefail

data=$1 rounds=$2 secs=$3
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=fw_lib.sh
. "$here/fw_lib.sh"
count=$(wc -l <"$data/listed.txt")

fw_up ip_set_hash_ip ip_set_hash_net
nets=$(cd "$data" && ls netblocks_*.txt 2>/dev/null | sed 's/^netblocks_\(.*\)\.txt$/\1/' | sort -n)

t0=$(date +%s)
declare -A mem
for t in standard blocked; do
	for p in 0.01 0.0001; do
		name=fw_${t}_$p
		in_rcv bloomctl create "$name" --type $t --capacity "$count" --fpp $p >&2
		in_rcv bloomctl add "$name" --ipv4 -f "$data/listed.txt" >&2
		mem[$name]=$(fw_bloom_memory "$name")
	done
done
declare -A nblocks rate
for l in $nets; do
	name=fwnet_$l
	nblocks[$l]=$(wc -l <"$data/netblocks_$l.txt")
	in_rcv bloomctl create "$name" --type blocked --capacity $((count + nblocks[$l])) \
		--fpp "$(python3 -c "print('%.4g' % (1e-4 / ($l + 1)))")" >&2
	in_rcv bloomctl add "$name" --ipv4 -f "$data/listed.txt" >&2
	in_rcv bloomctl add "$name" --ipv4 -f "$data/netblocks_$l.txt" >&2
	info=$(in_rcv bloomctl info --json "$name")
	mem[$name]=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["memory_bytes"])' "$info")
	rate[$l]=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["address_fpp"])' "$info")
	# the memory of the same feed at p = 0.01 per address (as F2's), which
	# a create fixes: no need to fill it
	in_rcv bloomctl create "${name}_0.01" --type blocked --capacity $((count + nblocks[$l])) \
		--fpp "$(python3 -c "print('%.4g' % (1e-2 / ($l + 1)))")" >&2
	mem[${name}_0.01]=$(fw_bloom_memory "${name}_0.01")
	in_rcv bloomctl destroy "${name}_0.01"
done
echo "fw_bench: filters filled in $(($(date +%s) - t0)) s" >&2
t0=$(date +%s)
{
	echo "create fwset hash:ip family inet hashsize 262144 maxelem $((count * 2))"
	sed 's/^/add fwset /' "$data/listed.txt"
} | in_rcv ipset restore
echo "fw_bench: ipset filled in $(($(date +%s) - t0)) s" >&2
ipset_mem=$(fw_ipset_field fwset "Size in memory")
ipset_n=$(fw_ipset_field fwset "Number of entries")
configs="none fw_standard_0.01 fw_blocked_0.01 fw_standard_0.0001 fw_blocked_0.0001 ipset"
netmem=
for l in $nets; do
	t0=$(date +%s)
	{
		echo "create ipnet_$l hash:net family inet hashsize 262144 maxelem $(((count + nblocks[$l]) * 2))"
		sed "s/^/add ipnet_$l /" "$data/listed.txt" "$data/netblocks_$l.txt"
	} | in_rcv ipset restore
	echo "fw_bench: ipset hash:net of $l lengths filled in $(($(date +%s) - t0)) s" >&2
	netmem="$netmem $l ${nblocks[$l]} ${rate[$l]} ${mem[fwnet_$l]} ${mem[fwnet_${l}_0.01]}"
	netmem="$netmem $(fw_ipset_field "ipnet_$l" "Size in memory")"
	netmem="$netmem $(fw_ipset_field "ipnet_$l" "Number of entries")"
	configs="$configs fwnet_$l ipnet_$l"
done

res=$(mktemp)
for r in $(seq "$rounds"); do
	for c in $configs; do
		case $c in
		none) fw_round "$c" "$r" "$count" "$secs" "$res" ;;
		ipset) fw_round "$c" "$r" "$count" "$secs" "$res" -m set --match-set fwset src ;;
		ipnet_*) fw_round "$c" "$r" "$count" "$secs" "$res" -m set --match-set "$c" src ;;
		*) fw_round "$c" "$r" "$count" "$secs" "$res" -m bloom --bloom-set "$c" --bloom-dir src ;;
		esac
	done
done

PYTHONPATH=$here python3 - "$res" "$count" "$PCT" "$secs" "$rounds" "$ipset_mem" "$ipset_n" \
	"$(uname -r)" "${mem[fw_standard_0.01]}" "${mem[fw_blocked_0.01]}" \
	"${mem[fw_standard_0.0001]}" "${mem[fw_blocked_0.0001]}" "$netmem" <<'PY'
import json, sys
import fw_rounds
(res, count, pct, secs, rounds, ipset_mem, ipset_n, kernel,
 m_s2, m_b2, m_s4, m_b4, netmem) = sys.argv[1:]
f = netmem.split()
netblocks = [{"lengths": int(f[i]), "netblocks": int(f[i + 1]),
              "address_fpp": float(f[i + 2]), "bloom_memory": int(f[i + 3]),
              "bloom_memory_0.01": int(f[i + 4]),
              "ipset_hash_net_memory": int(f[i + 5]),
              "ipset_entries": int(f[i + 6])}
             for i in range(0, len(f), 7)]
configs = fw_rounds.configs(res)
print(json.dumps({
    "guest_kernel": kernel, "listed": int(count), "listed_percent": int(pct),
    "seconds": float(secs), "rounds": int(rounds),
    "iptables": "iptables-legacy, raw table PREROUTING",
    "configs": configs,
    "memory": {"ipset_hash_ip": int(ipset_mem), "ipset_entries": int(ipset_n),
               "fw_standard_0.01": int(m_s2), "fw_blocked_0.01": int(m_b2),
               "fw_standard_0.0001": int(m_s4),
               "fw_blocked_0.0001": int(m_b4)},
    "netblocks": netblocks}, indent=1))
PY
in_rcv $ipt -t raw -F PREROUTING
in_rcv ipset destroy fwset
for l in $nets; do
	in_rcv ipset destroy "ipnet_$l"
	in_rcv bloomctl destroy "fwnet_$l"
done
for t in standard blocked; do
	for p in 0.01 0.0001; do in_rcv bloomctl destroy "fw_${t}_$p"; done
done
fw_down
rm -f "$res"
