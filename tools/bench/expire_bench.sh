#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The expiring-filter benchmark, run INSIDE the VM by run.sh ("expire"):
#   expire_bench.sh DATA_DIR ROUNDS SECONDS TIMEOUT ROT_CAPACITY ROT_TIMEOUT \
#       ROT_SECONDS > expire.json
# DATA_DIR (written on the host by run.sh): listed.txt, the N addresses the
# traffic's listed sources come from (from LISTED_BASE, as for the fw part),
# and the same addresses cut into TIMEOUT chunks, churn_NNNN.txt.
#
# Packets (fw_lib.sh's machinery, as the fw part): blocked filters with
# --timeout TIMEOUT (seconds) and the default generations G, sized for N
# keys per timeout at p = 0.01 and 0.0001, against ipset hash:ip timeout.
# Neither is filled at once: a loop on CPU 1 adds one chunk a second to
# both, cycling through the chunks, so every address is added again once
# per timeout, the steady load a filter is sized for (a burst of N keys
# would all land in one generation, sized for N / (G - 1)). The rounds
# start after one timeout of that churn, when both hold the N addresses
# spread as a steady load leaves them, and the churn goes on through them:
# every configuration, the no-rule baseline included, runs under it.
# ipset's timeout is the longest a key of the filter lives, TIMEOUT x
# (1 + 1 / (G - 1)), so that both hold every listed address throughout.
#
# Rotation: one blocked filter for ROT_CAPACITY keys per ROT_TIMEOUT
# seconds at p = 0.01 (about 1 GiB; max_memory is raised for it), so it
# rotates every ROT_TIMEOUT / (G - 1) s. kprobes on bloom_core_clear
# (trace_clock mono) time each generation's clearing; bench-expire
# queries keys it keeps refreshed for ROT_SECONDS, timing each query on
# CLOCK_MONOTONIC, and then splits its queries into those that overlapped a
# clearing and those that did not.
set -euo pipefail

data=$1 rounds=$2 secs=$3 timeout=$4 rot_cap=$5 rot_timeout=$6 rot_secs=$7
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=fw_lib.sh
. "$here/fw_lib.sh"
count=$(wc -l <"$data/listed.txt")
rates="0.01 0.0001"
filters=()
for p in $rates; do filters+=("exp_$p"); done

fw_up ip_set_hash_ip
declare -A mem
for p in $rates; do
	in_rcv bloomctl create "exp_$p" --type blocked --capacity "$count" --fpp "$p" \
		--timeout "${timeout}s" >&2
	mem[exp_$p]=$(fw_bloom_memory "exp_$p")
done
generations=$(in_rcv bloomctl info --json exp_0.01 |
	python3 -c 'import json,sys; print(len(json.load(sys.stdin)["generations"]))')
ipset_timeout=$(((timeout * generations + generations - 2) / (generations - 1)))
in_rcv ipset create expset hash:ip family inet hashsize 262144 \
	maxelem $((count * 2)) timeout $ipset_timeout

# The churn (bench-expire churn, on CPU 1): a chunk a second into every
# filter and, through one ipset restore, the set, until $stop exists;
# $progress holds the chunks and addresses added and the ms that took.
progress=$(mktemp)
stop=$(mktemp -u)
echo "0 0 0" >"$progress"
# shellcheck disable=SC2016 # expanded by that sh
in_rcv taskset -c 1 sh -c '"$0" "$@" | ipset restore -exist' \
	"$BUILD/bench/bench-expire" churn "$data" "$timeout" "$stop" "$progress" \
	"${filters[@]}" &
churn_pid=$!
t0=$(date +%s)
until [ "$(cut -d' ' -f1 "$progress")" -ge "$timeout" ]; do sleep 1; done
echo "expire_bench: one timeout of churn in $(($(date +%s) - t0)) s" >&2

res=$(mktemp)
fw_rounds_against_set "$rounds" "$count" "$secs" "$res" expset "${filters[@]}"
touch "$stop"
wait $churn_pid
read -r _ churned churn_ms <"$progress"
[ "$churned" -gt 0 ] || { echo "expire_bench: the churn added nothing" >&2; exit 1; }
ipset_mem=$(fw_ipset_field expset "Size in memory")
ipset_n=$(fw_ipset_field expset "Number of entries")
declare -A est
for p in $rates; do
	info=$(in_rcv bloomctl info --json "exp_$p")
	# the size is fixed at creation; the rate as the churn left it
	[ "$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["memory_bytes"])' "$info")" = "${mem[exp_$p]}" ]
	est[exp_$p]=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["address_fpp"])' "$info")
done
fw_down	# the set and the filters go with the namespace
echo "expire_bench: churn added $churned addresses in $churn_ms ms" >&2

# The rotation of a 1 GiB filter, as readers see it.
echo 2Gi >/sys/module/bloom/parameters/max_memory
bloomctl create rot --type blocked --capacity "$rot_cap" --fpp 0.01 \
	--timeout "${rot_timeout}s" >&2
rot_info=$(bloomctl info --json rot)
tr=/sys/kernel/tracing
[ -e $tr/trace ] || mount -t tracefs nodev $tr
echo mono >$tr/trace_clock
echo 'p:bloom_clear_in bloom:bloom_core_clear' >>$tr/kprobe_events
echo 'r:bloom_clear_out bloom:bloom_core_clear' >>$tr/kprobe_events
echo >$tr/trace
echo 1 >$tr/events/kprobes/enable
samples=$(mktemp)
"$BUILD/bench/bench-expire" read rot "$rot_secs" "$samples"
echo 0 >$tr/events/kprobes/enable
windows=$(mktemp)
# "... 123.456789: bloom_clear_in: ..." then the matching bloom_clear_out
awk '/bloom_clear_in:/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) t = $i
		sub(":", "", t); start = t }
	/bloom_clear_out:/ && start != "" { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) t = $i
		sub(":", "", t); printf "%.0f %.0f\n", start * 1e9, t * 1e9; start = "" }' \
	$tr/trace >"$windows"
echo >$tr/kprobe_events
readers=$("$BUILD/bench/bench-expire" classify "$samples" "$windows")
bloomctl destroy rot
echo 1Gi >/sys/module/bloom/parameters/max_memory
echo "expire_bench: $(wc -l <"$windows") clearings" >&2
rm -f "$samples" "$windows"

PYTHONPATH=$here python3 - "$res" "$count" "$PCT" "$secs" "$rounds" "$timeout" \
	"$generations" "$ipset_timeout" "$ipset_mem" "$ipset_n" "$churned" "$churn_ms" "$(uname -r)" \
	"${mem[exp_0.01]}" "${mem[exp_0.0001]}" "${est[exp_0.01]}" "${est[exp_0.0001]}" "$rot_info" "$rot_timeout" "$readers" <<'PY'
import json, sys
import fw_rounds
(res, count, pct, secs, rounds, timeout, gens, ipset_timeout, ipset_mem, ipset_n, churned,
 churn_ms, kernel, m2, m4, e2, e4, rot_info, rot_timeout, readers) = sys.argv[1:]
rot = json.loads(rot_info)
print(json.dumps({
    "guest_kernel": kernel, "listed": int(count), "listed_percent": int(pct),
    "seconds": float(secs), "rounds": int(rounds),
    "timeout_s": int(timeout), "generations": int(gens),
    "ipset_timeout_s": int(ipset_timeout),
    "churn": {"added": int(churned), "ms": int(churn_ms),
              "per_second_asked": int(count) / int(timeout)},
    "iptables": "iptables-legacy, raw table PREROUTING",
    "configs": fw_rounds.configs(res),
    "memory": {"ipset_hash_ip_timeout": int(ipset_mem),
               "ipset_entries": int(ipset_n),
               "exp_0.01": int(m2), "exp_0.0001": int(m4)},
    "address_fpp": {"exp_0.01": float(e2), "exp_0.0001": float(e4)},
    "rotation": {"memory_bytes": rot["memory_bytes"],
                 "capacity": rot["capacity"],
                 "generations": len(rot["generations"]),
                 "timeout_s": int(rot_timeout),
                 "readers": json.loads(readers)}}, indent=1))
PY
rm -f "$res" "$progress" "$stop"
