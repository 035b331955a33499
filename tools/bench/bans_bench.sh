#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The bans benchmark, run INSIDE the VM by run.sh ("bans"): keys with their
# own timeouts, as fail2ban, CrowdSec and sshguard set them, in a timed
# filter against ipset's hash:ip timeout.
#   bans_bench.sh DATA_DIR ROUNDS SECONDS SAMPLES TMIN TMAX > bans.json
# DATA_DIR (written on the host by run.sh): feed.txt, N ipset save lines
# "add bans ADDRESS timeout T" with the addresses from LISTED_BASE (the fw
# part's, so that fw_send's listed sources are the bans) and T from 1
# minute to 30 days; addrs.txt, the same addresses alone.
#
# 1. While traffic flows through both matches (fw_send from the other
#    namespace, on CPU 0), the feed goes into a timed filter at p = 1e-4
#    (bloomctl add -f, the save lines as they are) and into ipset (ipset
#    restore, its timeouts clamped to its largest, 2147483 s, as CrowdSec
#    clamps them): the time each took.
# 2. Packets: fw_lib.sh's rounds, the timed filter's match against the
#    set's, interleaved, while bench-bans expiry (on CPU 1) adds SAMPLES
#    more keys with timeouts of TMIN..TMAX s and polls them until each
#    tests absent: how late past its timeout each key went.
# 3. False negatives: bench-bans check after the load and after the
#    rounds: every key whose timeout cannot have passed must test present.
# 4. Memory: bloomctl info's memory_bytes (all of the filter) and ipset's
#    "Size in memory", per entry.
# 5. Deletes: bloomctl del -f of the N addresses and ipset restore of their
#    del lines, timed; then libbloom batches (bench-bans lib): the N added
#    again, each with its own timeout, and deleted, timed.
set -euo pipefail

data=$1 rounds=$2 secs=$3 samples=$4 tmin=$5 tmax=$6
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=fw_lib.sh
. "$here/fw_lib.sh"
feed=$data/feed.txt
count=$(wc -l <"$data/addrs.txt")
bans=$BUILD/bench/bench-bans

# now: seconds since boot as the module's clock counts them (CLOCK_BOOTTIME)
now() { cut -d' ' -f1 /proc/uptime; }
elapsed() { python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 3))" "$@"; }

fw_up ip_set_hash_ip
in_rcv bloomctl create bans --capacity "$count" --fpp 1e-4 --key-timeouts --keys ipv4 >&2
in_rcv ipset create bans hash:ip family inet hashsize 262144 maxelem $((count * 2)) \
	timeout 0

# 1. the load, under traffic through both matches
in_rcv $ipt -t raw -A PREROUTING -i vb -m bloom --bloom-set bans --bloom-dir src
in_rcv $ipt -t raw -A PREROUTING -i vb -m set --match-set bans src
in_rcv $ipt -t raw -A PREROUTING -i vb -j DROP
ip netns exec fwsnd taskset -c 0 "$fw_send_bin" 10.9.0.2 100000 $LISTED_BASE "$count" \
	$PCT >/dev/null &
traffic=$!
since=$(now)
in_rcv bloomctl add bans --ipv4 -f "$feed" >&2
t1=$(now)
bloom_add_s=$(elapsed "$since" "$t1")
awk '{ if ($5 > 2147483) $5 = 2147483; print }' "$feed" | in_rcv ipset restore
ipset_add_s=$(elapsed "$t1" "$(now)")
kill "$traffic"
wait "$traffic" || true
loaded=$(in_rcv $ipt -t raw -L PREROUTING -v -n -x | awk 'NR > 2 { printf "%s ", $1 }')
echo "bans_bench: loaded $count keys: bloomctl add -f $bloom_add_s s, ipset restore" \
	"$ipset_add_s s; packets through the rules meanwhile: $loaded" >&2
fn_loaded=$(in_rcv "$bans" check bans "$feed" "$since")

# 2. packets, while the expiry sample runs
sample=$(mktemp)
in_rcv taskset -c 1 "$bans" expiry bans "$samples" "$tmin" "$tmax" >"$sample" &
sampler=$!
res=$(mktemp)
fw_rounds_against_set "$rounds" "$count" "$secs" "$res" bans bans
wait "$sampler"
fn_rounds=$(in_rcv "$bans" check bans "$feed" "$since")

# 4. memory
info=$(in_rcv bloomctl info --json bans)
ipset_mem=$(fw_ipset_field bans "Size in memory")
ipset_n=$(fw_ipset_field bans "Number of entries")

# 5. deletes, then libbloom's batches
t0=$(now)
removed=$(in_rcv bloomctl del bans --ipv4 --exist -f "$data/addrs.txt")
t1=$(now)
bloom_del_s=$(elapsed "$t0" "$t1")
awk '{ print "del", $2, $3 }' "$feed" | in_rcv ipset restore -exist
ipset_del_s=$(elapsed "$t1" "$(now)")
ipset_left=$(fw_ipset_field bans "Number of entries")
echo "bans_bench: bloomctl del -f $bloom_del_s s ($removed), ipset $ipset_del_s s" >&2
lib=$(in_rcv "$bans" lib bans "$feed")
fw_down	# the set and the filter go with the namespace

PYTHONPATH=$here python3 - "$res" "$count" "$PCT" "$secs" "$rounds" "$(uname -r)" \
	"$info" "$ipset_mem" "$ipset_n" "$ipset_left" "$bloom_add_s" "$ipset_add_s" \
	"$bloom_del_s" "$ipset_del_s" "$removed" "$fn_loaded" "$fn_rounds" \
	"$(cat "$sample")" "$lib" <<'PY'
import json, re, sys
import fw_rounds
(res, count, pct, secs, rounds, kernel, info, ipset_mem, ipset_n, ipset_left,
 bloom_add_s, ipset_add_s, bloom_del_s, ipset_del_s, removed, fn_loaded,
 fn_rounds, sample, lib) = sys.argv[1:]
info = json.loads(info)
print(json.dumps({
    "guest_kernel": kernel, "listed": int(count), "listed_percent": int(pct),
    "seconds": float(secs), "rounds": int(rounds),
    "iptables": "iptables-legacy, raw table PREROUTING",
    "fpp": 1e-4, "address_fpp": info.get("address_fpp"),
    "configs": fw_rounds.configs(res),
    "memory": {"bans": info["memory_bytes"],
               "ipset_hash_ip_timeout": int(ipset_mem),
               "ipset_entries": int(ipset_n)},
    "load": {"bloomctl_add_f_s": float(bloom_add_s),
             "ipset_restore_add_s": float(ipset_add_s),
             "bloomctl_del_f_s": float(bloom_del_s),
             "ipset_restore_del_s": float(ipset_del_s),
             "bloomctl_removed": int(re.search(r"removed (\d+)", removed).group(1)),
             "ipset_left_after_del": int(ipset_left)},
    "libbloom": json.loads(lib),
    "false_negatives": {"after_load": json.loads(fn_loaded),
                        "after_rounds": json.loads(fn_rounds)},
    "expiry": json.loads(sample)}, indent=1))
PY
rm -f "$res" "$sample"
