#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# TAP 13 test of sizing from every angle: for a grid of inputs
# and every type, "bloomctl calc --json" says exactly what "create" then
# builds ("info --json"); a memory budget is never exceeded; bad
# combinations are refused with exit status 2, a message, and no filter.
# Runs as root with bloom.ko loaded and bloomctl on PATH, e.g.
#   selftests/vm/run.sh -- selftests/cli/test_sizing.sh

. "$(dirname "$0")/lib.sh"
cli_begin sztest
PY=$(command -v /usr/bin/python3 || command -v python3)

result() {	# result OK|FAIL DESC
	n=$((n + 1))
	if [ "$1" = OK ]; then
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
		for f in calc.json info.json err; do
			[ -s "$W/$f" ] && sed "s/^/# $f: /" "$W/$f" | head -n 20
		done
	fi
}

# same TYPE ARGS...: calc and create + info agree.
i=0
same() {
	t=$1
	shift
	i=$((i + 1))
	rm -f "$W/calc.json" "$W/info.json" "$W/err"
	if ! timeout "$LIMIT" bloomctl calc --type "$t" "$@" --json \
		>"$W/calc.json" 2>"$W/err" ||
	   ! timeout "$LIMIT" bloomctl create "$P$i" --type "$t" "$@" \
		2>>"$W/err" ||
	   ! timeout "$LIMIT" bloomctl info "$P$i" --json >"$W/info.json" \
		2>>"$W/err"; then
		result FAIL "$t $*: calc, create and info succeed"
		return
	fi
	mem=$(echo " $* " | sed -n 's/.* --memory \([^ ]*\) .*/\1/p')
	if "$PY" - "$W/calc.json" "$W/info.json" "$mem" <<'PYEOF' >>"$W/err" 2>&1
import json, sys
c = json.load(open(sys.argv[1]))
i = json.load(open(sys.argv[2]))
bad = [k for k in ("type", "capacity", "fpp", "fpp_ppb", "bits", "hashes",
                   "bits_per_key") if c[k] != i[k]]
if c["memory_bytes"] != i["table_bytes"]:
    bad.append("memory_bytes (calc) != table_bytes (info)")
if i["memory_bytes"] < i["table_bytes"]:
    bad.append("info memory_bytes < table_bytes")
mem = sys.argv[3]
if mem:
    m = {"": 1, "k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9,
         "Ki": 2**10, "Mi": 2**20, "Gi": 2**30}
    num = int("".join(ch for ch in mem if ch.isdigit()))
    suf = "".join(ch for ch in mem if not ch.isdigit()).rstrip("B")
    if i["table_bytes"] > num * m[suf]:
        bad.append("table over the --memory budget")
if bad:
    print("differ:", bad)
    sys.exit(1)
PYEOF
	then
		result OK "$t $*: calc = create + info (bits, hashes, capacity, fpp, table bytes)"
	else
		result FAIL "$t $*: calc = create + info"
	fi
	timeout "$LIMIT" bloomctl destroy "$P$i" 2>/dev/null
}

# Each case runs three bloomctl commands; under TCG that is seconds each,
# so the grid covers every combination once per type, not every size.
for t in standard blocked counting dleft; do
	same $t --capacity 7 --fpp 0.001
	same $t --capacity 100000 --fpp 1e-6
	same $t --memory 64Ki --fpp 0.01
	same $t --capacity 20000 --memory 100K
	same $t --memory 1Mi --bits-per-key 24
	case $t in
	standard|counting)
		same $t --capacity 50000 --bits-per-key 10
		same $t --memory 256Ki --fpp 0.001 --hashes 12
		;;
	*)
		same $t --capacity 50000 --bits-per-key 24
		;;
	esac
done

# refused: exit 2, a message that names numbers that fit, no filter
refused() {	# refused DESC PATTERN ARGS...
	desc=$1
	pat=$2
	shift 2
	i=$((i + 1))
	timeout "$LIMIT" bloomctl create "$P$i" "$@" >/dev/null 2>"$W/err"
	rc=$?
	if [ $rc = 2 ] && grep -q -- "$pat" "$W/err" &&
	   ! timeout "$LIMIT" bloomctl list -n | grep -qx "$P$i"; then
		result OK "$desc: exit 2, '$pat', nothing created"
	else
		echo "# exit status $rc"
		result FAIL "$desc"
	fi
	timeout "$LIMIT" bloomctl calc "$@" >/dev/null 2>&1
	rc=$?
	[ $rc = 2 ] && result OK "$desc: calc exits 2 too" ||
		result FAIL "$desc: calc exits 2 too (exit $rc)"
}
refused "one number" "give two of" --capacity 1000
refused "three numbers" "give two of" --capacity 1000 --fpp 0.01 --memory 1M
refused "rate and bits per key" "9.59 bits per key" --fpp 0.01 --bits-per-key 10
refused "memory too small for the capacity" "at most [0-9]* keys fit" \
	--capacity 1M --memory 1000
refused "bits per key too few" "give --bits-per-key [0-9.]* or more" \
	--capacity 1M --bits-per-key 1
refused "memory under one key" "cannot hold even one key" \
	--memory 10 --fpp 0.01
refused "--hashes for blocked" "standard or counting" \
	--type blocked --capacity 1000 --fpp 0.01 --hashes 3

# keys that expire: only standard and blocked, by capacity and rate
refused "a counting filter with a timeout" "cannot have a --timeout" \
	--type counting --capacity 1000 --fpp 0.01 --timeout 1h
refused "a dleft filter with a timeout" "cannot have a --timeout" \
	--type dleft --capacity 1000 --fpp 0.01 --timeout 1h
refused "a scalable filter with a timeout" "cannot have a --timeout" \
	--capacity 1000 --fpp 0.01 --scalable --timeout 1h
refused "a timeout under a second" "bad timeout" \
	--capacity 1000 --fpp 0.01 --timeout 0.5s
refused "generations without a timeout" "goes with --timeout" \
	--capacity 1000 --fpp 0.01 --generations 4
refused "17 generations" "bad generation count" \
	--capacity 1000 --fpp 0.01 --timeout 1h --generations 17
refused "a timeout with --memory" "keys per timeout" \
	--memory 1M --fpp 0.01 --timeout 1h

# calc --timeout: G = 3..9 per type; create takes what calc shows
i=$((i + 1))
if timeout "$LIMIT" bloomctl calc --timeout 90m --capacity 100000 --fpp 0.001 \
	--type blocked --json >"$W/calc.json" 2>"$W/err" &&
   timeout "$LIMIT" bloomctl create "$P$i" --type blocked --capacity 100000 \
	--fpp 0.001 --timeout 90m --generations 6 2>>"$W/err" &&
   timeout "$LIMIT" bloomctl info "$P$i" --json >"$W/info.json" 2>>"$W/err" &&
   "$PY" - "$W/calc.json" "$W/info.json" <<'PYEOF' >>"$W/err" 2>&1
import json, sys
calc = json.load(open(sys.argv[1]))
info = json.load(open(sys.argv[2]))
assert [r["generations"] for r in calc] == list(range(3, 10)), calc
row = [r for r in calc if r["generations"] == 6][0]
assert info["timeout_ms"] == 5400000 and info["generation_count"] == 6, info
assert info["bits"] == 6 * row["generation_bits"], (info["bits"], row)
assert len(info["generations"]) == 6, info["generations"]
for g in info["generations"]:
    assert g["capacity"] == row["generation_capacity"], g
    assert g["fpp_ppb"] == row["generation_fpp_ppb"], g
PYEOF
then
	result OK "calc --timeout: G = 3..9; create --timeout 90m --generations 6 is the row calc shows"
else
	result FAIL "calc --timeout: G = 3..9; create --timeout 90m --generations 6 is the row calc shows"
fi

# calc without --type: all five side by side
if timeout "$LIMIT" bloomctl calc --capacity 1M --fpp 0.01 --json >"$W/calc.json" &&
   "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [x["type"] for x in d]==["standard","blocked","counting","dleft","timed"]' "$W/calc.json"; then
	result OK "calc without --type: a JSON array of the five types"
else
	result FAIL "calc without --type: a JSON array of the five types"
fi

echo "1..$n"
echo "# $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
