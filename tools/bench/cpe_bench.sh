#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prefix expansion through the firewall, run INSIDE the VM by run.sh ("cpe"
# part):
#   cpe_bench.sh DATA_DIR ROUNDS SECONDS > cpe.json
# DATA_DIR/listed.txt holds listed addresses from LISTED_BASE (fw_lib.sh),
# DATA_DIR/netblocks_geo.txt a feed in the shape of a tor-geoipdb country
# (fw_netblocks.py --geo: 26 lengths), none of whose blocks holds a source
# of the traffic, so an unlisted packet meets every length a filter tests.
# The same feed (addresses and netblocks) four ways, each sized for a rate
# of 1e-4 per address:
#   fwnet   a blocked filter as filters held netblocks before prefix
#           expansion: one test per length, sized for 1e-4 / L per test
#   fwcpe   a blocked filter created with --prefix-feed (the lengths
#           bloom_plan_auto() chooses, E lookups), 1e-4 / E per test,
#           its capacity the keys the feed is stored as
#   fwcpe4  the same with --lookups 4
#   ipnet   ipset hash:net (one lookup per length)
# and "none" (no match rule, the baseline). fw_lib.sh's machinery; rounds
# interleave the configurations; each one's figure is its median. Then,
# without the network stack (whose time under TCG varies more than a
# lookup costs), cpe-query looks 65,536 unlisted addresses up in each
# filter through QUERY, ROUNDS x 3 times, taking turns.
set -euo pipefail

data=$1 rounds=$2 secs=$3
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=fw_lib.sh
. "$here/fw_lib.sh"
count=$(wc -l <"$data/listed.txt")
feed=$data/feed.txt
cat "$data/listed.txt" "$data/netblocks_geo.txt" >"$feed"
given=$(wc -l <"$feed")
rate=1e-4

fw_up ip_set_hash_net
# lookups as given: the address and each shorter length
plain=$(($(grep -o '/[0-9]*$' "$data/netblocks_geo.txt" | sort -u | wc -l) + 1))
# the lookups the automatic choice takes at this rate
auto=$(bloomctl calc --prefix-feed "$feed" --fpp $rate --type blocked |
	sed -n 's/.*a lookup tests at most \([0-9]*\)$/\1/p')

declare -A mem afpp keys
t0=$(date +%s)
in_rcv bloomctl create fwnet --type blocked --capacity "$given" \
	--fpp "$(python3 -c "print('%.4g' % ($rate / $plain))")" >&2
in_rcv bloomctl add fwnet --ipv4 --allow-short-prefixes -f "$feed" >&2
for c in "fwcpe $auto" "fwcpe4 4"; do
	read -r name lookups <<<"$c"
	in_rcv bloomctl create "$name" --type blocked --keys ipv4 --prefix-feed "$feed" \
		--lookups "$lookups" \
		--fpp "$(python3 -c "print('%.4g' % ($rate / $lookups))")" >&2
	in_rcv bloomctl add "$name" --ipv4 --allow-short-prefixes -f "$feed" >&2
done
echo "cpe_bench: filters filled in $(($(date +%s) - t0)) s" >&2
for f in fwnet fwcpe fwcpe4; do
	info=$(in_rcv bloomctl info --json "$f")
	mem[$f]=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["memory_bytes"])' "$info")
	afpp[$f]=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["address_fpp"])' "$info")
	keys[$f]=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["adds"])' "$info")
	lk=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["address_lookups"])' "$info")
	keys[$f]="${keys[$f]} $lk"
done
t0=$(date +%s)
{
	echo "create ipnet hash:net family inet hashsize 262144 maxelem $((given * 2))"
	sed 's/^/add ipnet /' "$feed"
} | in_rcv ipset restore
echo "cpe_bench: ipset hash:net filled in $(($(date +%s) - t0)) s" >&2
ipnet_mem=$(fw_ipset_field ipnet "Size in memory")

res=$(mktemp)
for r in $(seq "$rounds"); do
	for c in none fwnet fwcpe fwcpe4 ipnet; do
		case $c in
		none) fw_round "$c" "$r" "$count" "$secs" "$res" ;;
		ipnet) fw_round "$c" "$r" "$count" "$secs" "$res" -m set --match-set ipnet src ;;
		*) fw_round "$c" "$r" "$count" "$secs" "$res" -m bloom --bloom-set "$c" --bloom-dir src ;;
		esac
	done
done

qres=$(mktemp)
in_rcv "$BUILD/bench/cpe-query" $((rounds * 3)) 65536 fwnet fwcpe fwcpe4 >"$qres"

PYTHONPATH=$here python3 - "$res" "$qres" "$count" "$given" "$plain" "$auto" "$rate" \
	"$secs" "$rounds" "$(uname -r)" "$ipnet_mem" \
	"${mem[fwnet]} ${afpp[fwnet]} ${keys[fwnet]}" \
	"${mem[fwcpe]} ${afpp[fwcpe]} ${keys[fwcpe]}" \
	"${mem[fwcpe4]} ${afpp[fwcpe4]} ${keys[fwcpe4]}" <<'PY'
import json, statistics, sys
import fw_rounds
(res, qres, count, given, plain, auto, rate, secs, rounds, kernel,
 ipnet_mem, net, cpe, cpe4) = sys.argv[1:]
# cpe-query: NAME ROUND NS_PER_ADDRESS HITS
rows = [line.split() for line in open(qres)]
query = {}
for name in ("fwnet", "fwcpe", "fwcpe4"):
    mine = [r for r in rows if r[0] == name]
    query[name] = {"ns_per_address": [float(r[2]) for r in mine],
                   "unlisted_hits": [int(r[3]) for r in mine]}
# per round, each filter's time over fwnet's: they met the same load
def paired(name):
    return statistics.median(a / b for a, b in zip(
        query[name]["ns_per_address"], query["fwnet"]["ns_per_address"]))
configs = {c["name"]: c for c in fw_rounds.configs(res)}
base = configs["none"]["ns_per_packet"]
filters = {}
for name, f in (("fwnet", net), ("fwcpe", cpe), ("fwcpe4", cpe4)):
    m, a, k, lk = f.split()
    filters[name] = {"memory_bytes": int(m), "address_fpp": float(a),
                     "keys_stored": int(k), "address_lookups": int(lk)}
match = {n: c["ns_per_packet"] - base for n, c in configs.items()}
print(json.dumps({
    "guest_kernel": kernel, "listed": int(count), "entries": int(given),
    "lookups_as_given": int(plain), "lookups_auto": int(auto),
    "address_rate": float(rate), "seconds": float(secs),
    "rounds": int(rounds), "configs": list(configs.values()),
    "filters": filters, "ipset_hash_net_memory": int(ipnet_mem),
    "match_ns_per_packet": match, "query": query,
    "ratios": {
        "fwcpe_lookup_vs_fwnet": paired("fwcpe"),
        "fwcpe4_lookup_vs_fwnet": paired("fwcpe4"),
        "fwcpe_cost_vs_fwnet": match["fwcpe"] / match["fwnet"],
        "fwcpe4_cost_vs_fwnet": match["fwcpe4"] / match["fwnet"],
        "fwcpe_cost_vs_ipnet": match["fwcpe"] / match["ipnet"],
        "fwcpe_memory_vs_fwnet": filters["fwcpe"]["memory_bytes"] /
        filters["fwnet"]["memory_bytes"],
        "fwcpe4_memory_vs_fwnet": filters["fwcpe4"]["memory_bytes"] /
        filters["fwnet"]["memory_bytes"],
        "fwcpe_memory_vs_ipnet": filters["fwcpe"]["memory_bytes"] /
        int(ipnet_mem)}}, indent=1))
PY
in_rcv $ipt -t raw -F PREROUTING
in_rcv ipset destroy ipnet
for f in fwnet fwcpe fwcpe4; do in_rcv bloomctl destroy "$f"; done
fw_down
rm -f "$res" "$qres" "$feed"
