#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP 13 test of the backends bloom ships for the programs that ban
# addresses (tools/clients/, bloom-clients(7)), each run as Debian 12
# packages it, in network namespace b, against pings from namespace a:
#
# - fail2ban-server with jails watching log files and action bloom: failed
#   logins appended to the log ban the address (the filter holds it, the
#   rule drops its pings); a second ban of it (fail2ban's prolong), a
#   restart of the jail (it bans the address anew from its database) and
#   "unbanip" of an address the filter let go already do not make
#   fail2ban repair the action; "unbanip" lets the address through again;
#   a jail with bantime 20 s lets it go by itself; stop removes rule and
#   filter;
# - crowdsec's local API with crowdsec-custom-bouncer running crowdsec-bloom:
#   "cscli decisions add --ip ... --duration", "--range .../24" and
#   "cscli decisions delete": the filter follows, a 20 s decision goes by
#   itself; then the bouncer fed on standard input (feed_via_stdin: true,
#   as make install sets it up) running crowdsec-bloom-stdin: the decision
#   active at its start, an address, an IPv6 address, a range with host
#   bits set, deletes and a 5 s decision, the program running all along;
# - sshguard's blocker reading a file of attack lines into sshg-fw-bloom:
#   the attacker is blocked, and released after its block time; the
#   backend's exit statuses for a bad command (65) and a failed setup (69);
#   a burst of 2,000 blocks and a release of one (applied together, in
#   their order).
#
# Each backend is also handed, as the address of a ban and of an unban,
# values that bloomctl would take as options if the backend did not pass
# them as data: "-f FILE", "-fFILE", "--file=FILE", "-h", "--ipv6" and
# "--", with FILE a list of /8s of which one is banned: nothing is banned
# or unbanned, and the filter ends as it was (fail2ban's action through
# fail2ban-client's banip and unbanip and through its ban and unban
# command lines run by "set JAIL action"). Netblocks with host bits set, as
# sshguard (IPV4_SUBNET=24) and CrowdSec (--range 203.0.113.9/24) send
# them, are held as their networks, and released or deleted by the same
# line.
#
# A client that is not installed (tools/deps.sh clients) is skipped, saying
# so. Runs as root in the VM with bloom.ko loaded; loads the netfilter
# modules and xt_bloom.ko itself:
#   selftests/vm/run.sh -- selftests/net/test_clients.sh

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$repo/build}
. "$here/lib.sh"

xt_env cl
command -v iptables-nft >/dev/null ||
	{ echo "Bail out! iptables-nft missing: tools/deps.sh"; exit 1; }
xt_load

inA() { timeout "$LIMIT" ip netns exec "$A" "$@"; }
inB() { timeout "$LIMIT" ip netns exec "$B" "$@"; }
ping4() { inA ping -q -c1 -W1 -I "$1" "$2" >/dev/null 2>&1; }
listed() { inB bloomctl test "$1" --ipv4 -q "$2"; }
# dropped SRC: SRC's pings to b get no answer
dropped() { ! ping4 "$1" 10.0.0.254; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

ip netns add "$A" && ip netns add "$B" &&
ip link add va netns "$A" type veth peer name vb netns "$B" &&
ip -n "$A" addr add 10.0.0.1/24 dev va &&
ip -n "$A" addr add 10.0.0.2/24 dev va &&
ip -n "$B" addr add 10.0.0.254/24 dev vb &&
ip -n "$A" link set va up && ip -n "$B" link set vb up &&
ip -n "$B" link set lo up ||
	{ echo "Bail out! cannot set up namespaces and veth"; exit 1; }
check "namespaces joined by veth answer pings" ping4 10.0.0.1 10.0.0.254

# The backends with this tree's bloomctl and an iptables that finds the
# match of this tree (XTABLES_LIBDIR, exported by xt_env).
bc=$(command -v bloomctl)
mkdir -p "$W/bin"
for f in bloom.conf crowdsec-bloom sshg-fw-bloom; do
	sed -e "s|@SBINDIR@/bloomctl|$bc|g" -e "s|@SYSCONFDIR@|$W/etc|g" \
		"$repo/tools/clients/$f.in" >"$W/bin/$f"
done
chmod 755 "$W/bin/crowdsec-bloom" "$W/bin/sshg-fw-bloom"

# ---- what a client gives is data ----

# A list of /8s: bloomctl reading it as -f FILE would ban or unban them.
SLASH8=$W/slash8.list
printf '1.0.0.0/8\n2.0.0.0/8\n3.0.0.0/8\n' >"$SLASH8"
# cells SET: the cells a filter holds (bits_set of a timed filter)
cells() { inB bloomctl info --json "$1" >"$W/cells.json" && json_field "$W/cells.json" bits_set; }
# as_data DESC SET BAN UNBAN: BAN and UNBAN (commands taking one address)
# are handed option-like values; with 3.0.0.0/8 banned first, nothing in
# 1/8 or 2/8 may be banned after, 3/8 must still be, and SET must hold
# the cells it held.
as_data() {
	local what=$1 set=$2 ban=$3 unban=$4 v before after

	inB bloomctl add "$set" --ipv4 --exist 3.0.0.0/8
	before=$(cells "$set")
	for v in "-f $SLASH8" "-f$SLASH8" "--file=$SLASH8" -h --ipv6 --; do
		$ban "$v" >>"$W/as_data.log" 2>&1
		$unban "$v" >>"$W/as_data.log" 2>&1
	done
	after=$(cells "$set")
	check "$what: option-like addresses ban nothing (1.2.3.4, 2.2.3.4 absent)" \
		eval "! listed $set 1.2.3.4 && ! listed $set 2.2.3.4"
	check "$what: and unban nothing (3.2.3.4 still banned)" listed "$set" 3.2.3.4
	check "$what: the filter holds the cells it held ($before, now $after)" \
		eval '[ -n "$before" ] && [ "$before" = "$after" ]'
	inB bloomctl del "$set" --ipv4 --exist 3.0.0.0/8 >/dev/null
}

# ---- fail2ban ----

f2b_run() { inB fail2ban-client -c "$W/f2b" "$@"; }
f2b_banip() { f2b_run set t1 banip "$1"; }
f2b_unbanip() { f2b_run set t1 unbanip "$1"; }
# the action's own command lines, with <ip> as given (no IP check first)
f2b_act() { f2b_run set t1 action bloom "$1" "{\"aInfo\": {\"ip\": \"$2\", \"bantime\": 3600}}"; }
f2b_actban() { f2b_act ban "$1"; }
f2b_actunban() { f2b_act unban "$1"; }
# f2b_log_clean: fail2ban never had to repair an action, no action failed
f2b_log_clean() {
	! grep -Eq 'Invariant check failed|Error (banning|unbanning)|ERROR.*(action|returned)' \
		"$W/f2b.log"
}
fail2ban_part() {
	local log1=$W/t1.log log2=$W/t2.log i

	mkdir -p "$W/f2b"
	cp -r /etc/fail2ban/. "$W/f2b/"
	rm -rf "$W/f2b/jail.d" "$W/f2b/fail2ban.d" "$W/f2b/jail.local"
	cp "$W/bin/bloom.conf" "$W/f2b/action.d/bloom.conf"
	cat >"$W/f2b/fail2ban.local" <<-EOF
	[Definition]
	loglevel = INFO
	logtarget = $W/f2b.log
	socket = $W/f2b.sock
	pidfile = $W/f2b.pid
	dbfile = :memory:
	EOF
	cat >"$W/f2b/filter.d/bloomtest.conf" <<-EOF
	[Definition]
	failregex = ^bloomtest: failed login from <HOST>\$
	datepattern = {NONE}
	EOF
	cat >"$W/f2b/jail.local" <<-EOF
	[DEFAULT]
	backend = polling
	filter = bloomtest
	maxretry = 2
	findtime = 600
	action = bloom[type=allports, protocol=icmp, blocktype=DROP, capacity=1000]
	[t1]
	enabled = true
	logpath = $log1
	bantime = 3600
	[t2]
	enabled = true
	logpath = $log2
	bantime = 20
	EOF
	: >"$log1"
	: >"$log2"
	run f2b_run -x start
	check "fail2ban-server starts with jails t1 and t2 and action bloom" [ "$rc" = 0 ]
	check "fail2ban answers" wait_for 60 f2b_run ping

	for i in 1 2 3; do echo "bloomtest: failed login from 10.0.0.1" >>"$log1"; done
	check "failed logins in t1's log ban 10.0.0.1: filter f2b-t1 holds it" \
		wait_for 90 listed f2b-t1 10.0.0.1
	check "its pings are dropped" dropped 10.0.0.1
	check "10.0.0.2 still answers" ping4 10.0.0.2 10.0.0.254
	inB bloomctl info --json f2b-t1 >"$W/json" 2>/dev/null
	check "f2b-t1 is a timed filter of ipv4 keys" \
		grep -q '"type": "timed"' "$W/json"
	# fail2ban runs the action's ban again for the banned address, as
	# it does when it re-bans (after a repair, a restart that kept the
	# filter, a prolonged ban): a second add of the same key
	run f2b_run set t1 action bloom ban '{"aInfo": {"ip": "10.0.0.1", "bantime": 3600}}'
	check "fail2ban bans 10.0.0.1 a second time through the action" [ "$rc" = 0 ]
	inB bloomctl info --json f2b-t1 >"$W/json" 2>/dev/null
	check "the second ban added it again (adds $(json_field "$W/json" adds)), one cell (bits_set $(json_field "$W/json" bits_set))" \
		eval '[ "$(json_field "$W/json" adds)" -ge 2 ] && [ "$(json_field "$W/json" bits_set)" = 1 ]'
	# a restart of the jail (reload --restart): actionstop destroys the
	# filter, actionstart makes it anew, and fail2ban bans again, from its
	# database, what was banned
	run f2b_run restart t1
	check "fail2ban restarts jail t1" [ "$rc" = 0 ]
	check "after the restart f2b-t1 holds 10.0.0.1 again, banned anew" \
		wait_for 90 listed f2b-t1 10.0.0.1
	check "its pings are dropped again" dropped 10.0.0.1
	run f2b_run set t1 unbanip 10.0.0.1
	check "unbanip after two bans and a restart: f2b-t1 does not hold 10.0.0.1" \
		wait_for 30 eval "! listed f2b-t1 10.0.0.1"
	check "10.0.0.1 answers again" wait_for 10 ping4 10.0.0.1 10.0.0.254
	# an unban of an address the filter no longer holds
	run f2b_run set t1 banip 10.0.0.2
	wait_for 30 listed f2b-t1 10.0.0.2
	inB bloomctl del f2b-t1 --ipv4 10.0.0.2 >/dev/null
	run f2b_run set t1 unbanip 10.0.0.2
	sleep 3
	check "the ban of an address already gone, and its unban, never trip fail2ban's repair" \
		f2b_log_clean

	as_data "fail2ban-client banip/unbanip" f2b-t1 f2b_banip f2b_unbanip
	as_data "fail2ban's ban/unban command lines" f2b-t1 f2b_actban f2b_actunban
	run f2b_actban 203.0.113.9/24
	check "a ban of 203.0.113.9/24 (host bits set) bans the network: 203.0.113.200 listed" \
		listed f2b-t1 203.0.113.200
	run f2b_actunban 203.0.113.9/24
	check "its unban lets the network go" eval "! listed f2b-t1 203.0.113.200"
	grep -c 'Error banning\|Error unbanning' "$W/f2b.log" | sed 's/^/# f2b: failed actions (from the option-like values): /'
	# the option-like values are expected to fail; a clean log from here on
	: >"$W/f2b.log"

	for i in 1 2 3; do echo "bloomtest: failed login from 10.0.0.1" >>"$log2"; done
	check "jail t2 (bantime 20 s) bans 10.0.0.1" wait_for 90 listed f2b-t2 10.0.0.1
	check "its pings are dropped" dropped 10.0.0.1
	check "it is let go by itself (within 20 s + 60 s)" \
		wait_for 80 ping4 10.0.0.1 10.0.0.254
	run f2b_run stop
	check "fail2ban stops" [ "$rc" = 0 ]
	check "actionstop removed the filters" \
		wait_for 30 eval "! inB bloomctl info f2b-t1 >/dev/null 2>&1 && ! inB bloomctl info f2b-t2 >/dev/null 2>&1"
	check "and the rules" eval "! inB iptables-nft -S INPUT | grep -q bloom"
	check "fail2ban's log has no failed action" f2b_log_clean
	grep -E 'ERROR|WARNING' "$W/f2b.log" | head -n 5 | sed 's/^/# f2b: /'
}
if command -v fail2ban-client >/dev/null; then
	fail2ban_part
else
	skip "fail2ban" "fail2ban is not installed (tools/deps.sh clients)"
fi

# ---- CrowdSec ----

cs() { inB cscli -c "$W/cs/config.yaml" "$@"; }
# cs_decisions SET LABEL SECONDS: with 10.0.0.1 banned through the running
# bouncer into SET, a range with host bits set comes and goes by cscli,
# 10.0.0.1 is deleted, a decision of SECONDS goes by itself (checks LABEL...)
cs_decisions() {
	local set=$1 label=$2 secs=$3

	run cs decisions add --range 203.0.113.9/24 --duration 1h
	check "$label--range 203.0.113.9/24 (host bits set): $set holds the network (203.0.113.200)" \
		wait_for 90 listed "$set" 203.0.113.200
	run cs decisions delete --range 203.0.113.9/24
	check "${label}its delete lets the network go" \
		wait_for 60 eval "! listed $set 203.0.113.200"
	run cs decisions delete --ip 10.0.0.1
	check "${label}cscli decisions delete --ip 10.0.0.1: $set lets it go" \
		wait_for 60 eval "! listed $set 10.0.0.1"
	check "10.0.0.1 answers again" wait_for 10 ping4 10.0.0.1 10.0.0.254
	run cs decisions add --ip 10.0.0.2 --duration "${secs}s"
	check "${label}a $secs s decision for 10.0.0.2 is applied" \
		wait_for 60 listed "$set" 10.0.0.2
	check "and goes by itself (within $secs s + 60 s)" \
		wait_for $((secs + 60)) ping4 10.0.0.2 10.0.0.254
}
# crowdsec-bloom as crowdsec-custom-bouncer runs it, for one address
cs_add() { inB "$W/bin/crowdsec-bloom" add "$1" 3600 test '{"scope":"Ip"}'; }
cs_del() { inB "$W/bin/crowdsec-bloom" del "$1" 3600 test '{"scope":"Ip"}'; }
crowdsec_part() {
	local key=0123456789abcdef0123456789abcdef

	mkdir -p "$W/cs" "$W/etc/default"
	python3 "$here/crowdsec_lapi.py" "$W/cs"
	run cs machines add bloomtest --auto -f "$W/cs/lapi.yaml"
	check "cscli registers a machine" [ "$rc" = 0 ]
	run cs bouncers add bloombouncer -k $key
	check "cscli registers the bouncer" [ "$rc" = 0 ]
	cat >"$W/cs/bouncer.yaml" <<-EOF
	bin_path: $W/bin/crowdsec-bloom
	feed_via_stdin: false
	total_retries: 0
	scenarios_containing: []
	scenarios_not_containing: []
	origins: []
	piddir: $W/cs/
	update_frequency: 1s
	cache_retention_duration: 10s
	daemonize: false
	log_mode: file
	log_dir: $W/cs/
	log_level: info
	api_url: http://127.0.0.1:8080/
	api_key: $key
	EOF
	echo "BLOOM_CROWDSEC_SET=${P}cs BLOOM_CROWDSEC_SET6=${P}cs6 BLOOM_CROWDSEC_CAPACITY=1000" \
		>"$W/etc/default/crowdsec-bloom"
	ip netns exec "$B" crowdsec -c "$W/cs/config.yaml" -no-cs >"$W/cs/lapi.out" 2>&1 &
	cspid=$!
	check "crowdsec's local API listens" wait_for 90 cs decisions list
	ip netns exec "$B" crowdsec-custom-bouncer -c "$W/cs/bouncer.yaml" \
		>"$W/cs/bouncer.out" 2>&1 &
	bpid=$!
	run cs decisions add --ip 10.0.0.1 --duration 1h
	check "cscli decisions add --ip 10.0.0.1 --duration 1h: ${P}cs holds it" \
		wait_for 90 listed ${P}cs 10.0.0.1
	check "its pings are dropped" dropped 10.0.0.1
	run cs decisions add --range 192.0.2.0/24 --duration 1h
	check "--range 192.0.2.0/24: ${P}cs holds 192.0.2.77 (a netblock)" \
		wait_for 90 listed ${P}cs 192.0.2.77
	as_data "crowdsec-bloom" ${P}cs cs_add cs_del
	run cs_add 10.0.0.256
	check "crowdsec-bloom: an address that does not parse exits 3, nothing changed" \
		eval '[ "$rc" = 3 ] && grep -q "nothing was changed" "$W/err"'
	run inB "$W/bin/crowdsec-bloom" add DE 3600 test '{"scope":"Country","value":"DE"}'
	check "crowdsec-bloom: a decision of scope Country exits 3 naming the scope" \
		eval '[ "$rc" = 3 ] && grep -q "scope .Country." "$W/err"'
	run inB "$W/bin/crowdsec-bloom" add 10.7.7.7 00000000005 test '{"scope":"Ip"}'
	check "crowdsec-bloom: a duration of 00000000005 is 5 s: 10.7.7.7 banned" \
		eval '[ "$rc" = 0 ] && listed ${P}cs 10.7.7.7'
	check "and let go by itself within 20 s" wait_for 20 eval "! listed ${P}cs 10.7.7.7"
	# a minute: the bouncer's poll and a program per decision under TCG
	# on a loaded host can take a 20 s decision's whole life to apply it
	cs_decisions ${P}cs "" 60
	kill "$bpid" 2>/dev/null
	wait "$bpid" 2>/dev/null
	grep -i 'error' "$W/cs/crowdsec-custom-bouncer.log" 2>/dev/null | head -n 5 |
		sed 's/^/# bouncer: /'
	inB iptables-nft -D INPUT -m bloom --bloom-set ${P}cs -j DROP 2>/dev/null
	crowdsec_stdin_part
	kill "$cspid" 2>/dev/null
	wait "$cspid" 2>/dev/null
}

# The bouncer as make install sets it up: feed_via_stdin: true, its program
# crowdsec-bloom-stdin, on filters of their own (the decision of 192.0.2.0/24
# that the part above left is sent at the bouncer's start).
listed6() { inB bloomctl test "$1" --ipv6 -q "$2"; }
crowdsec_stdin_part() {
	cp "$BUILD/clients/crowdsec-bloom-stdin" "$W/bin/"
	sed -e "s|^bin_path:.*|bin_path: $W/bin/crowdsec-bloom-stdin|" \
		-e 's|^feed_via_stdin:.*|feed_via_stdin: true|' \
		"$W/cs/bouncer.yaml" >"$W/cs/bouncer-stdin.yaml"
	rm -f "$W/cs/crowdsec-custom-bouncer.log"
	echo "BLOOM_CROWDSEC_SET=${P}cq BLOOM_CROWDSEC_SET6=${P}cq6 BLOOM_CROWDSEC_CAPACITY=1000" \
		>"$W/etc/default/crowdsec-bloom"
	ip netns exec "$B" crowdsec-custom-bouncer -c "$W/cs/bouncer-stdin.yaml" \
		>"$W/cs/bouncer.out" 2>&1 &
	bpid=$!
	check "feed_via_stdin: the decision active at the bouncer's start is applied: ${P}cq holds 192.0.2.77" \
		wait_for 90 listed ${P}cq 192.0.2.77
	run cs decisions add --ip 10.0.0.1 --duration 1h
	check "feed_via_stdin: cscli decisions add --ip 10.0.0.1: ${P}cq holds it" \
		wait_for 90 listed ${P}cq 10.0.0.1
	check "its pings are dropped (the rule crowdsec-bloom setup added)" dropped 10.0.0.1
	run cs decisions add --ip 2001:db8::1 --duration 1h
	check "feed_via_stdin: --ip 2001:db8::1: ${P}cq6 holds it" \
		wait_for 90 listed6 ${P}cq6 2001:db8::1
	cs_decisions ${P}cq "feed_via_stdin: " 5
	check "the bouncer still runs, its program never exited" \
		eval 'kill -0 "$bpid" && ! grep -q "Binary exited" "$W/cs/crowdsec-custom-bouncer.log"'
	kill "$bpid" 2>/dev/null
	wait "$bpid" 2>/dev/null
	grep -i 'error' "$W/cs/crowdsec-custom-bouncer.log" 2>/dev/null | head -n 5 |
		sed 's/^/# bouncer (feed_via_stdin): /'
	inB iptables-nft -D INPUT -m bloom --bloom-set ${P}cq -j DROP 2>/dev/null
	inB ip6tables-nft -D INPUT -m bloom --bloom-set ${P}cq6 -j DROP 2>/dev/null
}
if command -v crowdsec >/dev/null && command -v crowdsec-custom-bouncer >/dev/null &&
	[ -r /etc/crowdsec/config.yaml ]; then
	crowdsec_part
else
	skip "crowdsec" "crowdsec or crowdsec-custom-bouncer is not installed (tools/deps.sh clients)"
fi

# ---- sshguard ----

attack() {
	echo "Nov 27 18:00:00 host sshd[$1]: Failed password for root from $2 port $1 ssh2" >>"$W/attacks.log"
}
# fw_line LINE: sshg-fw-bloom reads LINE; fw_unset: with a bloomctl that fails
fw_line() {
	echo "$1" | BLOOM_SSHGUARD_RULE=0 timeout "$LIMIT" \
		ip netns exec "$B" "$W/bin/sshg-fw-bloom"
}
fw_unset() {
	echo "$1" | BLOOMCTL=/bin/false timeout "$LIMIT" \
		ip netns exec "$B" "$W/bin/sshg-fw-bloom"
}
sshguard_part() {
	local lx=/usr/libexec/sshguard

	run fw_line bogus
	check "sshg-fw-bloom: an unknown command exits 65" [ "$rc" = 65 ]
	run fw_unset flush
	check "sshg-fw-bloom: a failed setup exits 69" [ "$rc" = 69 ]
	sg_block() { fw_line "block $1 4 32"; }
	sg_release() { fw_line "release $1 4 32"; }
	as_data "sshg-fw-bloom" sshguard sg_block sg_release
	run fw_line "block 10.0.2.1 4 24"
	check "sshg-fw-bloom: block 10.0.2.1 4 24 (IPV4_SUBNET=24) blocks 10.0.2.0/24 (10.0.2.200 listed)" \
		eval '[ "$rc" = 0 ] && listed sshguard 10.0.2.200'
	run fw_line "release 10.0.2.1 4 24"
	check "release 10.0.2.1 4 24 lets the network go" \
		eval '[ "$rc" = 0 ] && ! listed sshguard 10.0.2.200'
	# a burst, as sshguard's blacklist at start: the blocks applied
	# together, the release after them (commands keep their order)
	awk 'BEGIN { for (i = 1; i <= 2000; i++)
		printf "10.9.%d.%d\n", int(i / 256), i % 256 }' >"$W/burst.addrs"
	{ sed 's/.*/block & 4 32/' "$W/burst.addrs"
	  echo "release 10.9.0.5 4 32"; } >"$W/burst"
	run sh -c "BLOOM_SSHGUARD_RULE=0 timeout $LIMIT ip netns exec $B \
		$W/bin/sshg-fw-bloom <$W/burst"
	inB bloomctl test sshguard --ipv4 --absent -f "$W/burst.addrs" \
		>"$W/burst.absent"
	check "sshg-fw-bloom: a burst of 2,000 blocks, then a release of one of them: the other 1,999 listed, the released one absent ($(wc -l <"$W/burst.absent") absent)" \
		eval '[ "$rc" = 0 ] && [ "$(cat "$W/burst.absent")" = 10.9.0.5 ]'
	inB bloomctl del sshguard --ipv4 --exist -f "$W/burst.addrs" >/dev/null
	: >"$W/attacks.log"
	# a session of its own: the whole pipeline goes with one kill
	setsid ip netns exec "$B" sh -c "tail -n +1 -F $W/attacks.log 2>/dev/null |
		$lx/sshg-parser | $lx/sshg-blocker -a 30 -p 20 -s 1800 |
		$W/bin/sshg-fw-bloom" &
	spid=$!
	attack 1000 10.0.0.1
	attack 1001 10.0.0.1
	attack 1002 10.0.0.1
	attack 1003 10.0.0.1
	check "sshguard reading attack lines blocks 10.0.0.1: filter sshguard holds it" \
		wait_for 90 listed sshguard 10.0.0.1
	check "its pings are dropped" dropped 10.0.0.1
	check "10.0.0.2 still answers" ping4 10.0.0.2 10.0.0.254
	# sshguard releases at its next check after the block time
	for i in $(seq 1 16); do
		sleep 5
		attack $((2000 + i)) 10.0.0.99
		listed sshguard 10.0.0.1 || break
	done
	check "and releases it after its block time (20 s)" eval "! listed sshguard 10.0.0.1"
	check "10.0.0.1 answers again" wait_for 10 ping4 10.0.0.1 10.0.0.254
	kill -- -"$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	inB iptables-nft -D INPUT -m bloom --bloom-set sshguard -j DROP 2>/dev/null
	inB ip6tables-nft -D INPUT -m bloom --bloom-set sshguard6 -j DROP 2>/dev/null
}
if [ -x /usr/libexec/sshguard/sshg-blocker ]; then
	sshguard_part
else
	skip "sshguard" "sshguard is not installed (tools/deps.sh clients)"
fi

# xt_bloom.ko goes as it came, once the namespaces and the rules in them are
# gone (the kernel tears a namespace down in a work item of its own): a
# loaded xt_bloom.ko keeps bloom.ko from unloading after the last test.
ip netns del "$A"
ip netns del "$B"
check "rmmod xt_bloom once the namespaces and their rules are gone (within 300 s)" \
	wait_for 300 rmmod xt_bloom
finish
