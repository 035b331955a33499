#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench/run.sh [native] [vm] [cli] [scale] [snap] [fw] [peer] [hash] [xdp]
#     [expire] [map] [bans] [cpe] [clients]:
# runs the benchmarks (all fourteen parts by default) and writes
# tools/bench/results/latest.{json,md} and the plots: one report for all
# parts. Called by "make bench" at the top (make -C tools/bench run), and by
# make -C tools/bench scale, fw, peer and hash for one part.
#   native  bench-native on this host: the core, the baseline, the floor;
#           NATIVE_BIG=N: the out-of-cache size (default 1.25x the L3 the
#           CPU reports, at least 20,000,000 keys)
#   vm      bench-vm in the QEMU VM (selftests/vm/run.sh): /dev/bloom, the
#           core in the guest, the BPF Bloom filter map
#   cli     cli_bench.sh in the VM: bloomctl against DCSO's bloom
#   scale   bench-scale on this host: scalable filters (memory against one
#           optimal filter, rate, query cost against the number of stages)
#   snap    snap_bench.sh in the VM: SAVE/RESTORE against memcpy, bloomctl
#           build against bloomctl add -f
#   fw      fw_bench.sh in the VM: packets per second through a firewall
#           rule, bloom (xt_bloom) against ipset hash:ip, and their memory;
#           feeds with netblocks against ipset hash:net
#   peer    bench-peer on this host: the blocked filter against Boost.Bloom
#           and the floor on the same hashes; "skipped: ..." when the peer
#           or Boost's headers are missing (Makefile: BOOST_BLOOM_DIR).
#           PEER_BIG=N: the out-of-cache size (default 50,000,000 keys)
#   hash    bench-hash on this host: keyed hashes by key length
#   xdp     xdp_bench.sh in the VM: XDP programs through BPF_PROG_TEST_RUN
#           looking addresses up with the bloom kfunc, in a BPF Bloom map
#           at the same rate and in a hash map; "skipped: ..." without
#           clang (15 or later), bpftool or libbpf-dev. XDP_BEFORE_KO=PATH:
#           the same with another build's bloom.ko too, in the same VM
#           (the figures before a change, beside this tree's);
#           XDP_ROUNDS, XDP_REPEAT: rounds (5) and runs per sample (200000)
#   expire  expire_bench.sh in the VM: packets per second through a rule on
#           an expiring filter against ipset hash:ip timeout, both under
#           the same churn, and their memory; the rotation of a 1 GiB
#           expiring filter: the clearing's time, and queries during it
#           against queries outside it
#   map     bench-map in the VM: one key at a time through libbloom's
#           read-only mapping against the core's own query in the guest and
#           the one-key ioctl, and batches through the mapping, standard and
#           blocked filters of 1M and 50M keys (in and out of cache);
#           bench-map-swaps: a reader through the mapping while a writer
#           adds to a pair of 1M-key filters and swaps them; then
#           bench-map --model on this host: the same library code over a
#           memfd laid out as the module's mapping, on a real CPU
#   bans    bans_bench.sh in the VM: a timed filter (keys with their own
#           timeouts, 1 minute to 30 days) against ipset hash:ip timeout
#           holding the same 1,000,000 addresses: memory, packets through
#           each match, loads and deletes through bloomctl -f, ipset
#           restore and libbloom batches, how late a sample of keys with
#           2-20 s timeouts expires, false negatives; first, on this
#           host, bench-bans-native: the timed lookup (the core's) against
#           a model of ipset's hash:ip timeout lookup, the same feed
#   cpe     cpe_bench.sh in the VM: a feed shaped as a tor-geoipdb country
#           (26 lengths) stored as given, with prefix expansion, and in
#           ipset hash:net: lookup cost, packets, memory, rate
#   clients clients_bench.sh in the VM: the ban tools as Debian ships them,
#           each with bloom's backend against what its users run: CrowdSec
#           (CLIENTS_DECISIONS decisions, default 200,000, imported into
#           its local API) through crowdsec-custom-bouncer and
#           crowdsec-bloom-stdin against crowdsec-firewall-bouncer in
#           ipset and nftables mode; fail2ban started with CLIENTS_BANS
#           bans (20,000) in its database, action bloom against
#           iptables-ipset and nftables; sshguard with a blacklist of
#           CLIENTS_BLACKLIST addresses (38,000), sshg-fw-bloom against
#           sshg-fw-nft-sets: the time from each client's start until
#           every ban is enforced, memory, bans lost. CLIENTS_WAIT: the
#           longest each client is given (7200 s; 300 with BENCH_QUICK,
#           whose sizes are 1,000, 500 and 500); CLIENTS_SECTIONS:
#           which clients (crowdsec fail2ban sshguard). A client not
#           installed (tools/deps.sh bench) is reported as skipped. The
#           clients apply a ban a process (but bloom's CrowdSec backend):
#           at the full sizes the part takes hours (tools/bench/README.md)
# Raw JSON goes to $BUILD/bench/raw/. The parts run replace their sections
# of the report; the others keep theirs from the report's last run of them,
# each section naming the run it comes from (date, command, commit,
# machine), and a part never run is reported as "not run". A part skipped
# (peer, without Boost.Bloom) replaces its section too, with the reason.
# The headline counts the targets of the parts that ran and names the
# others.
# BENCH_OUT=DIR: write the report there instead of tools/bench/results/.
# BENCH_QUICK=1: small sizes, a smoke test of the whole flow (minutes); its
# report goes to $BUILD/bench/quick-results/, never over the committed
# tools/bench/results/ of a real run, and keeps nothing of an older run.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$top/build}
out=$BUILD/bench
raw=$out/raw
quick=${BENCH_QUICK:-}
all="native vm cli scale snap fw peer hash xdp expire map bans cpe clients"
parts=${*:-$all}
results=${BENCH_OUT:-$here/results}
[ -n "$quick" ] && results=$out/quick-results

mkdir -p "$raw"
rm -f "$raw"/*.json "$raw"/*.err "$raw"/*.log
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)

vm() {
	# The VM's cwd must exist in the guest: the repository does.
	(cd "$top" && selftests/vm/run.sh --timeout "$1" --mem "${VM_MEM:-2G}" -- "${@:2}")
}

# unbuilt PART PROGRAM: PROGRAM was not built (the Makefile wrote why in
# PART.skip): the part's JSON says it was skipped, and why.
unbuilt() {
	local why
	[ -f "$out/$1.skip" ] || [ ! -x "$out/$2" ] || return 1
	why=$(cat "$out/$1.skip" 2>/dev/null || echo "$2 was not built")
	echo "skipped: $why" >&2
	python3 -c 'import json, sys; print(json.dumps({"skipped": sys.argv[1]}))' \
		"$why" > "$raw/$1.json"
}

# bench_merge_native VM_JSON NATIVE_JSON: the VM's JSON with the host's
# model run under "native" (xdp, bans).
bench_merge_native() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["native"] = json.load(open(sys.argv[2]))
print(json.dumps(d))' "$1" "$2"
}

run_part() {
	case $1 in
	native)
		echo "bench: native (this host)" >&2
		"$out/bench-native" ${quick:+--quick} \
			${NATIVE_BIG:+--big "$NATIVE_BIG"} > "$raw/native.json"
		;;
	vm)
		echo "bench: vm (QEMU, TCG)" >&2
		if [ -n "$quick" ]; then
			args=(--keys 100000 --rounds 2 --calls 2000 --batch-keys 65536)
		else
			args=(--keys 1000000 --rounds 9 --calls 50000 --batch-keys 524288)
		fi
		vm 1800 "$out/bench-vm" "${args[@]}" > "$raw/vm.json"
		;;
	cli)
		echo "bench: cli (QEMU, TCG): bloomctl against DCSO bloom" >&2
		local n=1000000 a=2000000 rounds=2
		[ -n "$quick" ] && n=100000 a=200000 rounds=1
		mkdir -p "$out/cli"
		"$out/bench-keyfile" present $n > "$out/cli/present.txt"
		"$out/bench-keyfile" absent $a > "$out/cli/absent.txt"
		vm 1800 "$here/cli_bench.sh" "$out/cli" $rounds > "$raw/cli.json"
		;;
	scale)
		echo "bench: scale (this host): scalable filters" >&2
		"$out/bench-scale" ${quick:+--quick} > "$raw/scale.json"
		;;
	snap)
		echo "bench: snap (QEMU, TCG): save/restore, build" >&2
		local n=1000000 mib=64 rounds=3
		[ -n "$quick" ] && n=100000 mib=8 rounds=1
		mkdir -p "$out/snap"
		"$out/bench-keyfile" present $n > "$out/snap/present.txt"
		vm 1800 "$here/snap_bench.sh" "$out/snap" $mib $rounds > "$raw/snap.json"
		;;
	fw)
		echo "bench: fw (QEMU, TCG): iptables -m bloom against ipset" >&2
		local rounds=5 secs=3
		[ -n "$quick" ] && rounds=1 secs=1
		mkdir -p "$out/fw"
		# 1,000,000 listed addresses from 16.0.0.0 (fw_send's range)
		python3 -c 'import ipaddress, sys
b = int(ipaddress.IPv4Address("16.0.0.0"))
sys.stdout.write("".join(str(ipaddress.IPv4Address(b + i)) + "\n" for i in range(int(sys.argv[1]))))' \
			"$([ -n "$quick" ] && echo 100000 || echo 1000000)" >"$out/fw/listed.txt"
		# netblocks_L.txt: a feed's netblocks over L lengths, in
		# 128.0.0.0/1, which the traffic never comes from
		python3 "$here/fw_netblocks.py" "$out/fw" \
			"$([ -n "$quick" ] && echo 2000 || echo 20000)" 4 12 24
		vm 2400 "$here/fw_bench.sh" "$out/fw" $rounds $secs > "$raw/fw.json"
		;;
	cpe)
		echo "bench: cpe (QEMU, TCG): prefix expansion against one test per length and ipset hash:net" >&2
		local rounds=5 secs=3 n=100000 blocks=20000
		[ -n "$quick" ] && rounds=1 secs=1 n=10000 blocks=5000
		mkdir -p "$out/cpe"
		python3 -c 'import ipaddress, sys
b = int(ipaddress.IPv4Address("16.0.0.0"))
sys.stdout.write("".join(str(ipaddress.IPv4Address(b + i)) + "\n" for i in range(int(sys.argv[1]))))' \
			$n >"$out/cpe/listed.txt"
		python3 "$here/fw_netblocks.py" --geo "$out/cpe" $blocks
		vm 2400 "$here/cpe_bench.sh" "$out/cpe" $rounds $secs > "$raw/cpe.json"
		;;
	peer)
		echo "bench: peer (this host): blocked against Boost.Bloom" >&2
		unbuilt peer bench-peer && return 0
		"$out/bench-peer" ${quick:+--quick} \
			${PEER_BIG:+--big "$PEER_BIG"} > "$raw/peer.json"
		;;
	xdp)
		echo "bench: xdp (QEMU, TCG): the kfunc against BPF maps" >&2
		unbuilt xdp bench-xdp && return 0
		local rounds=${XDP_ROUNDS:-5} repeat=${XDP_REPEAT:-200000} n=1000000
		[ -n "$quick" ] && rounds=1 repeat=20000 n=100000
		mkdir -p "$out/xdp"
		# the addresses of the fw part: N from 16.0.0.0
		python3 -c 'import ipaddress, sys
b = int(ipaddress.IPv4Address("16.0.0.0"))
sys.stdout.write("".join(str(ipaddress.IPv4Address(b + i)) + "\n" for i in range(int(sys.argv[1]))))' \
			$n >"$out/xdp/listed.txt"
		# first, natively: bloom's address lookup against a model of
		# the BPF Bloom map's (bpfmap.c), the same N addresses, and
		# 50M (--big) out of cache
		echo "bench: xdp: bench-bpfmap on this host" >&2
		"$out/bench-bpfmap" --count $n ${quick:+--big 0 --rounds 3} \
			> "$out/xdp/native.json"
		# XDP_BEFORE_KO (xdp_bench.sh) passes on into the VM; the
		# host's load around it goes in the JSON (other VMs may share
		# the cores)
		local load
		load=$(cat /proc/loadavg)
		vm 2400 env ${XDP_BEFORE_KO:+XDP_BEFORE_KO="$XDP_BEFORE_KO"} \
			"$here/xdp_bench.sh" "$out/xdp" $rounds $repeat > "$out/xdp/vm.json"
		bench_merge_native "$out/xdp/vm.json" "$out/xdp/native.json" |
			python3 -c 'import json, sys
d = json.load(sys.stdin)
d["load"] = sys.argv[1:]
print(json.dumps(d))' "$load" "$(cat /proc/loadavg)" > "$raw/xdp.json"
		;;
	expire)
		echo "bench: expire (QEMU, TCG): expiring filters against ipset timeout" >&2
		# N listed addresses, added again once per timeout T s, in T
		# chunks (expire_bench.sh); the rotation: 497M keys per 8 s at
		# p = 0.01, about 1 GiB (bloomctl calc), queried for 20 s
		local rounds=5 secs=3 n=200000 t=40 rcap=497000000 rsecs=20
		[ -n "$quick" ] && rounds=1 secs=1 n=20000 t=10 rcap=10000000 rsecs=5
		mkdir -p "$out/expire"
		rm -f "$out/expire"/churn_*.txt
		python3 -c 'import ipaddress, sys
n, t, d = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
b = int(ipaddress.IPv4Address("16.0.0.0"))
a = [str(ipaddress.IPv4Address(b + i)) + "\n" for i in range(n)]
open(d + "/listed.txt", "w").write("".join(a))
for i in range(t):
    open("%s/churn_%04d.txt" % (d, i), "w").write("".join(a[i::t]))' \
			$n $t "$out/expire"
		VM_MEM=3G vm 2400 "$here/expire_bench.sh" "$out/expire" $rounds $secs $t \
			$rcap 8 $rsecs > "$raw/expire.json"
		;;
	map)
		echo "bench: map (QEMU, TCG): queries through the mapping" >&2
		local sizes="1000000 50000000" q=200000 n t
		# readers during swaps and adds: a pair of filters of swapn
		# keys per type, swaps seconds quiet then as long streaming
		local swapn=1000000 swaps=10
		[ -n "$quick" ] && sizes=100000 q=20000 swapn=100000 swaps=2
		local cmd=""
		for n in $sizes; do
			for t in standard blocked; do
				cmd+="$out/bench-map $n $t $q && "
			done
		done
		for t in standard blocked; do
			cmd+="$out/bench-map-swaps $swapn $t $swaps 1 && "
		done
		{
			echo "# host load before $(cat /proc/loadavg)"
			VM_MEM=3G vm 2400 bash -c "${cmd}true"
			echo "# host load after $(cat /proc/loadavg)"
			echo "bench: map (this host): the same over a model" >&2
			for n in $sizes; do
				for t in standard blocked; do
					"$out/bench-map" --model $n $t $q
				done
			done
		} | python3 "$here/map_report.py" > "$raw/map.json"
		;;
	bans)
		echo "bench: bans (QEMU, TCG): a timed filter against ipset timeout" >&2
		# BANS_N: the addresses (default 1,000,000), from 16.0.0.0
		# (fw_send's listed range), each with a timeout from 1 minute
		# to 30 days; a sample of 1,000 keys with 2-20 s timeouts
		local n=${BANS_N:-1000000} rounds=5 secs=3 samples=1000
		[ -n "$quick" ] && n=${BANS_N:-50000} rounds=1 secs=1 samples=200
		mkdir -p "$out/bans"
		python3 -c 'import ipaddress, random, sys
n, d = int(sys.argv[1]), sys.argv[2]
random.seed(7)
b = int(ipaddress.IPv4Address("16.0.0.0"))
a = [str(ipaddress.IPv4Address(b + i)) for i in range(n)]
open(d + "/addrs.txt", "w").write("".join(x + "\n" for x in a))
open(d + "/feed.txt", "w").write("".join("add bans %s timeout %d\n" % (x, random.randint(60, 30 * 86400)) for x in a))' \
			$n "$out/bans"
		# first, natively: the timed filter's lookup against a model
		# of ipset's hash:ip timeout (bans_native.c), the same feed
		echo "bench: bans: bench-bans-native on this host" >&2
		"$out/bench-bans-native" ${quick:+--rounds 3 --sample 200000} \
			"$out/bans/feed.txt" > "$out/bans/native.json"
		vm 2400 "$here/bans_bench.sh" "$out/bans" $rounds $secs $samples 2 20 \
			> "$out/bans/vm.json"
		bench_merge_native "$out/bans/vm.json" "$out/bans/native.json" \
			> "$raw/bans.json"
		;;
	clients)
		echo "bench: clients (QEMU, TCG): the ban tools' backends at scale" >&2
		# CLIENTS_DECISIONS, CLIENTS_BANS, CLIENTS_BLACKLIST: CrowdSec's
		# decisions, fail2ban's bans, sshguard's blacklist; CLIENTS_WAIT:
		# the longest a client is given to enforce them (s);
		# CLIENTS_SECTIONS: which clients
		local d=${CLIENTS_DECISIONS:-200000} b=${CLIENTS_BANS:-20000}
		local k=${CLIENTS_BLACKLIST:-38000} w=${CLIENTS_WAIT:-7200}
		local sections=${CLIENTS_SECTIONS:-crowdsec fail2ban sshguard}
		if [ -n "$quick" ]; then
			d=${CLIENTS_DECISIONS:-1000} b=${CLIENTS_BANS:-500}
			k=${CLIENTS_BLACKLIST:-500} w=${CLIENTS_WAIT:-300}
		fi
		mkdir -p "$out/clients"
		python3 "$here/clients_data.py" gen "$out/clients" "$d" "$b" "$k"
		# eight clients at most, each given w s; the host.s load
		# around it goes in the JSON (other VMs may share the cores)
		local load
		load=$(cat /proc/loadavg)
		VM_MEM=${VM_MEM:-3G} vm $((8 * w + 1800)) "$here/clients_bench.sh" \
			"$out/clients" "$w" $sections > "$out/clients/vm.json"
		python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["load"] = sys.argv[2:]
print(json.dumps(d))' "$out/clients/vm.json" "$load" "$(cat /proc/loadavg)" \
			> "$raw/clients.json"
		;;
	hash)
		echo "bench: hash (this host): keyed hashes" >&2
		"$out/bench-hash" ${quick:+--count 200000 --rounds 3} \
			> "$raw/hash.json"
		;;
	*)
		echo "bench: unknown part '$1' ($all)" >&2
		return 2
		;;
	esac
}

# A part that fails does not stop the others: the report says it failed,
# with the end of its error output.
for part in $parts; do
	t0=$(date +%s)
	status=0
	run_part "$part" 2> >(tee "$raw/$part.log" >&2) || status=$?
	wait $! 2>/dev/null || true	# tee has written all of the log
	if [ $status != 0 ]; then
		rm -f "$raw/$part.json"
		tail -n 20 "$raw/$part.log" > "$raw/$part.err"
		echo "bench: $part FAILED" >&2
	fi
	echo "bench: $part took $(($(date +%s) - t0)) s" >&2
done

if [ "$parts" = "$all" ]; then
	command="make bench"
else
	command="make -C tools/bench run PARTS=\"$parts\""
fi
# the settings that change what a part measures (a module by its file
# name: the report names no path of the machine it ran on)
for v in XDP_ROUNDS XDP_REPEAT XDP_TURNS XDP_BEFORE_KO CLIENTS_DECISIONS CLIENTS_BANS \
	CLIENTS_BLACKLIST CLIENTS_WAIT CLIENTS_SECTIONS; do
	[ -n "${!v:-}" ] || continue
	val=${!v##*/}
	[[ $val != *" "* ]] || val="\"$val\""
	command="$v=$val $command"
done
merge=--merge
[ -n "$quick" ] && merge=
mkdir -p "$results"
python3 "$here/report.py" --raw "$raw" --out "$results" \
	--started "$started" --command "$command${quick:+ (BENCH_QUICK=1)}" \
	--parts "$parts" ${merge:+"$merge"}
echo "bench: wrote $results/latest.md and latest.json" >&2
